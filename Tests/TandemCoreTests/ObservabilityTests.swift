import Foundation
import Synchronization
import Testing
@testable import TandemCore

@Suite("Logs and metrics")
struct ObservabilityTests {
    @Test("a log line is one JSON object with escaped values and the context fields")
    func logLine() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(minimumLevel: .info, now: { 1_700_000_000.1234 }, sink: { line in lines.withLock { $0.append(line) } })
            .with(["component": "test"])
        logger.debug("dropped")
        logger.info("hello \"world\"\n", ["count": 3, "ok": .bool(true), "who": .msisdn(MSISDN("+31612345678")!)])
        let captured = lines.withLock { $0 }
        #expect(captured.count == 1)
        let line = try #require(captured.first)
        #expect(line.hasSuffix("}\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
        #expect(object["msg"] as? String == "hello \"world\"\n")
        #expect(object["level"] as? String == "info")
        #expect(object["component"] as? String == "test")
        #expect(object["count"] as? Int == 3)
        #expect(object["who"] as? String == "+3161****678")
        #expect(line.hasPrefix("{\"ts\":1700000000.123,"))
        // A narrower component replaces the wider one: one key, once.
        logger.with(["component": "apns"]).info("narrower")
        let narrower = try #require(lines.withLock { $0.last })
        #expect(narrower.components(separatedBy: "\"component\"").count == 2)
        #expect(narrower.contains("\"component\":\"apns\""))
    }

    @Test("control characters are escaped as \\u00XX")
    func controlCharacters() {
        #expect(JSONText.quoted("a\u{1}b") == #""a\u0001b""#)
        #expect(JSONText.quoted("tab\there") == #""tab\there""#)
    }

    @Test("metrics render in the Prometheus 0.0.4 text format")
    func prometheusText() {
        let registry = MetricsRegistry()
        let requests = registry.counter("tandem_http_requests_total", help: "HTTP requests.", labels: ["route", "status"])
        let latency = registry.histogram("tandem_http_request_duration_seconds", help: "Latency.", labels: ["route"],
                                         buckets: [0.001, 0.01])
        registry.gauge("process_resident_memory_bytes", help: "Resident memory.") { 4096 }
        requests.increment(["/healthz", "200"])
        requests.increment(["/healthz", "200"])
        requests.increment(["/a\"b", "404"])
        latency.observe(0.0005, ["/healthz"])
        latency.observe(0.005, ["/healthz"])
        latency.observe(5, ["/healthz"])

        let text = registry.render()
        #expect(text.contains("# HELP tandem_http_requests_total HTTP requests.\n# TYPE tandem_http_requests_total counter\n"))
        #expect(text.contains("tandem_http_requests_total{route=\"/healthz\",status=\"200\"} 2\n"))
        #expect(text.contains("tandem_http_requests_total{route=\"/a\\\"b\",status=\"404\"} 1\n"))
        #expect(text.contains("# TYPE tandem_http_request_duration_seconds histogram\n"))
        #expect(text.contains("tandem_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"0.001\"} 1\n"))
        #expect(text.contains("tandem_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"0.01\"} 2\n"))
        #expect(text.contains("tandem_http_request_duration_seconds_bucket{route=\"/healthz\",le=\"+Inf\"} 3\n"))
        #expect(text.contains("tandem_http_request_duration_seconds_sum{route=\"/healthz\"} 5.0055\n"))
        #expect(text.contains("tandem_http_request_duration_seconds_count{route=\"/healthz\"} 3\n"))
        #expect(text.contains("# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 4096\n"))
        #expect(requests.value(["/healthz", "200"]) == 2)
        #expect(latency.count(["/healthz"]) == 3)
    }

    @Test("counters stay exact under concurrent increments")
    func concurrentCounters() async {
        let registry = MetricsRegistry()
        let counter = registry.counter("c_total", help: "c", labels: ["k"])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counter.increment(["\(task % 2)"]) } }
            }
        }
        #expect(counter.value(["0"]) + counter.value(["1"]) == 80_000)
    }
}

@Suite("Readable log lines")
struct TextLogTests {
    private func capture(_ format: LogFormat, _ body: (Logger) -> Void) -> [String] {
        let lines = Mutex<[String]>([])
        body(Logger(minimumLevel: .info, format: format, now: { 1_700_000_000.1234 },
                    sink: { line in lines.withLock { $0.append(line) } }))
        return lines.withLock { $0 }
    }

    @Test("log.format text: time of day, padded level, message, key=value; MSISDNs still masked")
    func textLine() {
        let lines = capture(.text) { logger in
            logger.with(["component": "http"]).info("store open", [
                "path": "/srv/data/t.sqlite", "count": 3, "ok": .bool(true), "who": .msisdn(MSISDN("+31612345678")!),
                "note": "two words", "empty": "", "quote": "a\"b",
            ])
            logger.warning("careful")
            logger.debug("dropped")
        }
        #expect(lines == [
            #"22:13:20.123 info  store open component=http path=/srv/data/t.sqlite count=3 ok=true who=+3161****678 note="two words" empty="" quote="a\"b""# + "\n",
            "22:13:20.123 warning careful\n",
        ])
    }

    @Test("log.format json stays the default")
    func jsonDefault() throws {
        let lines = Mutex<[String]>([])
        Logger(minimumLevel: .info, now: { 1_700_000_000.1234 }, sink: { line in lines.withLock { $0.append(line) } })
            .info("m", ["who": .msisdn(MSISDN("+31612345678")!)])
        #expect(lines.withLock { $0 } == [#"{"ts":1700000000.123,"level":"info","msg":"m","who":"+3161****678"}"# + "\n"])
        #expect(try loadTestConfiguration("{}").log.format == .json)
        #expect(try loadTestConfiguration(#"{"log": {"format": "text"}}"#).log.format == .text)
        #expect(testConfigurationProblem(#"{"log": {"format": "pretty"}}"#)
                == #"Config/test.json: log.format: expected "json" or "text", got "pretty""#)
    }

    @Test("the time of day wraps at UTC midnight", arguments: [(0.0, "00:00:00.000"), (86_399.9996, "00:00:00.000"),
                                                               (86_399.999, "23:59:59.999"), (3_723.05, "01:02:03.050")])
    func timeOfDay(time: Double, expected: String) {
        #expect(Logger.timeOfDay(time) == expected)
    }
}

@Suite("Metrics read at scrape time")
struct ScrapedMetricsTests {
    @Test("counters kept elsewhere are typed counter; labelled gauges render one series each; counter names must end in _total")
    func scraped() {
        let registry = MetricsRegistry()
        registry.counter("tandem_x_total", help: "X.") { 3 }
        registry.counter("tandem_y_total", help: "Y.", labels: ["provider"]) { [(["apns"], 1), (["fcm"], 2)] }
        registry.gauge("tandem_z", help: "Z.", labels: ["horizon"]) { [(["le_1m"], 4)] }
        let text = registry.render()
        #expect(text.contains("# TYPE tandem_x_total counter\ntandem_x_total 3\n"))
        #expect(text.contains("# TYPE tandem_y_total counter\ntandem_y_total{provider=\"apns\"} 1\ntandem_y_total{provider=\"fcm\"} 2\n"))
        #expect(text.contains("# TYPE tandem_z gauge\ntandem_z{horizon=\"le_1m\"} 4\n"))
    }

    @Test("delivery metrics: a delivery final at its start counts as started and finished on channel none")
    func deliveryMetrics() {
        let registry = MetricsRegistry()
        let metrics = DeliveryMetrics(registry: registry)
        var delivery = Delivery(smsValidity: .seconds(60))
        _ = delivery.handle(.routed(.reject(.noPushableDevice)), now: Timestamp(milliseconds: 0))
        metrics.started(delivery)
        metrics.accepted(api: "scg", recipients: 2)
        metrics.pushed(.android, .rejected(.tokenDead))
        let text = registry.render()
        #expect(text.contains("tandem_deliveries_started_total{channel=\"none\"} 1"))
        #expect(text.contains("tandem_deliveries_finished_total{channel=\"none\",status=\"Rejected\"} 1"))
        #expect(text.contains("tandem_messages_accepted_total{api=\"scg\"} 2"))
        #expect(text.contains("tandem_pushes_total{provider=\"fcm\",outcome=\"invalid_token\"} 1"))
        #expect(text.contains("tandem_delivery_duration_seconds_count{channel=\"none\"} 1"))
    }
}

@Suite("Timer wheel horizons")
struct TimerWheelHorizonTests {
    @Test("pending timers are counted by how far ahead they are due, from the wheel's time")
    func horizons() {
        var wheel = TimerWheel(now: Tick(1_000))
        for (id, ahead) in [(1, 10), (2, 6_000), (3, 6_001), (4, 50_000), (5, 9_000_000)] as [(UInt64, UInt64)] {
            _ = wheel.schedule(TimerID(rawValue: id), at: Tick(1_000 + ahead))
        }
        #expect(wheel.pendingCounts(within: [6_000, 60_000]) == [2, 2, 1])
        _ = wheel.advance(to: Tick(7_000))
        #expect(wheel.pendingCounts(within: [6_000, 60_000]) == [1, 1, 1], "1 and 2 fired; 3 is 1 tick ahead, 4 44,000, 5 beyond")
    }
}
