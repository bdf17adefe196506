import Foundation
import Synchronization
import Testing
import TandemCore
import TandemHTTP
@testable import TandemAPI
import TandemTestSupport

/// Kannel's DLR callbacks: the codec and its mapping (pure), the endpoint called through its route, and the
/// endpoint in a real server called by `Tests/peers/kannel_fake.py` expanding the dlr-url as smsbox does.
@Suite("Kannel DLR endpoint")
struct KannelDLRTests {
    private static func decode(_ query: String, token: String? = nil) -> Result<KannelDLR, KannelDLRError> {
        KannelDLRCodec.decode(QueryParameters(rawQuery: query), expectedToken: token)
    }

    @Test("DLR types map to outcomes; stat:EXPIRED in the SMSC's reply makes a type 2 expired", arguments: [
        ("1", "", KannelDLR.Meaning.final(.delivered)),
        ("2", "", .final(.failed)),
        ("2", "id%3A42%20sub%3A001%20dlvrd%3A000%20stat%3AUNDELIV%20err%3A001", .final(.failed)),
        ("2", "id%3A42%20sub%3A001%20dlvrd%3A000%20stat%3AEXPIRED%20err%3A000%20text%3Ahi", .final(.expired)),
        ("2", "stat%3Aexpired", .final(.expired)),
        ("16", "NACK%2F0x00000045%2FSubmit%20failed", .final(.failed)),
        ("16", "stat%3AEXPIRED", .final(.failed)),
        ("4", "", .intermediate),
        ("8", "ACK%2F", .intermediate),
        ("9", "", .final(.delivered)),
        ("34", "", .final(.failed)),
    ])
    func mapping(type: String, reply: String, meaning: KannelDLR.Meaning) throws {
        let dlr = try Self.decode("ref=0123456789abcdef&type=\(type)&reply=\(reply)&time=1790000000&to=%2B31612345678").get()
        #expect(dlr.reference == "0123456789abcdef")
        #expect(dlr.meaning == meaning)
    }

    @Test("malformed callbacks are refused with a reason", arguments: [
        ("type=1", KannelDLRError.missingReference),
        ("ref=&type=1", .missingReference),
        ("ref=a%20b&type=1", .invalidReference),
        ("ref=\(String(repeating: "a", count: 65))&type=1", .invalidReference),
        ("ref=abc", .missingType),
        ("ref=abc&type=%d", .invalidType("%d")),
        ("ref=abc&type=-1", .invalidType("-1")),
        ("ref=abc&type=0", .unknownType(0)),
        ("ref=abc&type=32", .unknownType(32)),
    ])
    func malformed(query: String, error: KannelDLRError) {
        #expect(Self.decode(query) == .failure(error))
    }

    @Test("with a token configured, a missing or different token is refused before anything else")
    func token() {
        #expect(Self.decode("ref=abc&type=1&token=s3cret", token: "s3cret").map(\.type) == .success(1))
        #expect(Self.decode("ref=abc&type=1", token: "s3cret") == .failure(.wrongToken))
        #expect(Self.decode("ref=abc&type=1&token=s3cre", token: "s3cret") == .failure(.wrongToken))
        #expect(Self.decode("type=nonsense&token=x", token: "s3cret") == .failure(.wrongToken))
        #expect(Self.decode("ref=abc&type=1&token=anything") .map(\.type) == .success(1))
    }

    @Test("the event-log detail keeps the receipt but not the message text it quotes")
    func detail() {
        let receipt = KannelDLR(reference: "r", type: 1, reply: "id:42 stat:DELIVRD err:000 text:Your code is 123456")
        #expect(receipt.detail == "kannel type 1: id:42 stat:DELIVRD err:000")
        #expect(KannelDLR(reference: "r", type: 8, reply: nil).detail == "kannel type 8")
        #expect(KannelDLR(reference: "r", type: 16, reply: "NACK/0x45/Submit failed").detail == "kannel type 16: NACK/0x45/Submit failed")
    }

    // MARK: - The endpoint through its route

    final class Recorder: Sendable {
        let reports = Mutex<[SMSDeliveryReport]>([])
        let order = Mutex<[String]>([])

        var handler: SMSReportHandler {
            { reports in
                self.order.withLock { $0.append("handler started") }
                await Task.yield()
                self.reports.withLock { $0 += reports }
                self.order.withLock { $0.append("handler returned") }
            }
        }
    }

    private static func call(_ endpoint: KannelDLREndpoint, _ target: String, method: HTTPMethod = .GET) async -> Response? {
        var router = HTTPRouter()
        endpoint.register(in: &router)
        let request = Request(method: method, target: target)
        guard case .matched(_, .async(let handler), _) = router.match(method, path: request.path) else { return nil }
        return await handler(request)
    }

    @Test("a final DLR is reported by reference, and answered 200 only after the handler returned")
    func finalReported() async throws {
        let recorder = Recorder()
        let endpoint = KannelDLREndpoint(settings: .init(token: "tok-1"), onReports: recorder.handler)
        let response = try #require(await Self.call(endpoint, "/kannel/dlr?ref=0123456789abcdef&type=2"
            + "&reply=id%3A1%20stat%3AEXPIRED%20err%3A000&time=1790000000&to=%2B31612345678&token=tok-1"))
        recorder.order.withLock { $0.append("answered \(response.status.rawValue)") }
        #expect(recorder.order.withLock { $0 } == ["handler started", "handler returned", "answered 200"])
        #expect(recorder.reports.withLock { $0 } == [SMSDeliveryReport(provider: "kannel", reference: "0123456789abcdef",
                                                                        outcome: .expired,
                                                                        detail: "kannel type 2: id:1 stat:EXPIRED err:000")])
    }

    @Test("intermediate DLRs are answered 200 and reported to no one; malformed 400; a wrong token 403")
    func notReported() async throws {
        let recorder = Recorder()
        let endpoint = KannelDLREndpoint(settings: .init(path: "/hooks/kannel", token: "tok-1", providerName: "kannel-eu"),
                                         onReports: recorder.handler)
        let queued = try #require(await Self.call(endpoint, "/hooks/kannel?ref=abc&type=8&reply=ACK%2F&token=tok-1"))
        #expect(queued.status == .ok)
        let malformed = try #require(await Self.call(endpoint, "/hooks/kannel?ref=abc&type=x&token=tok-1"))
        #expect(malformed.status == .badRequest)
        #expect(String(decoding: malformed.body, as: UTF8.self) == "invalid type \"x\": expected Kannel's DLR type (%d), a number\n")
        let forbidden = try #require(await Self.call(endpoint, "/hooks/kannel?ref=abc&type=1&token=nope"))
        #expect(forbidden.status == .forbidden)
        #expect(recorder.reports.withLock { $0 }.isEmpty)
        #expect(await Self.call(endpoint, "/kannel/dlr?ref=abc&type=1&token=tok-1") == nil)  // only the configured path
        let delivered = try #require(await Self.call(endpoint, "/hooks/kannel?ref=abc&type=1&token=tok-1"))
        #expect(delivered.status == .ok)
        #expect(recorder.reports.withLock { $0 }.map(\.provider) == ["kannel-eu"])
    }

    // MARK: - In a real server, called back the way smsbox does

    @Test("Kannel's per-part callbacks through a real server: each final part reported under the one reference")
    func throughTheServer() async throws {
        let recorder = Recorder()
        var router = HTTPRouter()
        KannelDLREndpoint(settings: .init(token: "tok-1"), onReports: recorder.handler).register(in: &router)
        let server = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), router: router,
                                onRequestCompleted: { _ in })
        let port = try server.start()
        let results = FileManager.default.temporaryDirectory.appendingPathComponent("kannel-dlr-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: results) }
        // What KannelSMSSender asks Kannel to call (escape codes intact), then three callbacks as for a two-part SMS.
        let template = "http://127.0.0.1:\(port)/kannel/dlr?ref=0123456789abcdef&type=%d&reply=%A&time=%T&to=%p&token=tok-1"
        let fire: [[String: Any]] = [
            ["url": template, "type": 8, "reply": "ACK/", "to": "+31612345678"],
            ["url": template, "type": 1, "reply": "id:a1 sub:001 dlvrd:001 stat:DELIVRD err:000 text:Part one & +", "to": "+31612345678"],
            ["url": template, "type": 2, "reply": "id:a2 sub:001 dlvrd:000 stat:EXPIRED err:000 text:Part two", "to": "+31612345678"],
            ["url": template.replacingOccurrences(of: "tok-1", with: "forged"), "type": 1, "reply": "", "to": "+31612345678"],
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: fire), as: UTF8.self)
        let peer = try await PythonPeer.start("kannel_fake.py", arguments: ["--fire", json, "--results", results])
        defer { peer.stop() }

        // A bound for failure, not a pause: while other suites start their Python peers (a blocking read of
        // the PORT line on a cooperative thread) this server's async handlers can wait seconds for a thread.
        var lines: [String] = []
        _ = await eventually(timeout: .seconds(60)) {
            lines = ((try? String(contentsOfFile: results, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            return lines.count == 4
        }
        let statuses = try lines.map { line -> Int in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["status"] as? Int)
        }
        #expect(statuses == [200, 200, 200, 403])
        #expect(recorder.reports.withLock { $0 } == [
            SMSDeliveryReport(provider: "kannel", reference: "0123456789abcdef", outcome: .delivered,
                              detail: "kannel type 1: id:a1 sub:001 dlvrd:001 stat:DELIVRD err:000"),
            SMSDeliveryReport(provider: "kannel", reference: "0123456789abcdef", outcome: .expired,
                              detail: "kannel type 2: id:a2 sub:001 dlvrd:000 stat:EXPIRED err:000"),
        ])
        await server.shutdown(gracePeriod: .seconds(1))
    }
}
