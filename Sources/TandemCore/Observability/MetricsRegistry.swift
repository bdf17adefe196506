import Synchronization

/// Counters, histograms and gauges, rendered in the Prometheus text exposition format 0.0.4.
///
/// Families are registered once at start-up and then updated from any thread; each family guards its own
/// samples with a mutex, so updates to different families never contend. Not guaranteed: a scrape sees a
/// consistent snapshot across families (each family is read under its own lock, one after another).
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[any MetricFamily]>([])

    public init() {}

    public func counter(_ name: String, help: String, labels: [String] = []) -> CounterFamily {
        precondition(name.hasSuffix("_total"), "\(name): a counter's name ends in _total")
        return register(CounterFamily(name: name, help: help, labelNames: labels))
    }

    public func histogram(_ name: String, help: String, labels: [String] = [], buckets: [Double]) -> HistogramFamily {
        register(HistogramFamily(name: name, help: help, labelNames: labels, buckets: buckets))
    }

    /// A gauge whose value is read when scraped (e.g. resident memory, queue depth).
    public func gauge(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        _ = register(GaugeFamily(name: name, help: help, type: "gauge", labelNames: []) { [([], read())] })
    }

    /// A gauge with labels, every series read when scraped (label values in `labels`' order).
    public func gauge(_ name: String, help: String, labels: [String],
                      read: @escaping @Sendable () -> [(labels: [String], value: Double)]) {
        _ = register(GaugeFamily(name: name, help: help, type: "gauge", labelNames: labels, read: read))
    }

    /// A counter kept elsewhere (a component's own statistics), read when scraped; it must only grow.
    public func counter(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        counter(name, help: help, labels: []) { [([], read())] }
    }

    /// Counters with labels kept elsewhere, every series read when scraped.
    public func counter(_ name: String, help: String, labels: [String],
                        read: @escaping @Sendable () -> [(labels: [String], value: Double)]) {
        precondition(name.hasSuffix("_total"), "\(name): a counter's name ends in _total")
        _ = register(GaugeFamily(name: name, help: help, type: "counter", labelNames: labels, read: read))
    }

    private func register<F: MetricFamily>(_ family: F) -> F {
        families.withLock { $0.append(family) }
        return family
    }

    /// The exposition text (`Content-Type: text/plain; version=0.0.4`).
    public func render() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for family in snapshot {
            out += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n# TYPE \(family.name) \(family.type)\n"
            family.renderSamples(into: &out)
        }
        return out
    }

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    /// `{a="x",b="y"}`, or nothing when there are no labels.
    static func labelText(_ names: [String], _ values: [String], extra: (String, String)? = nil) -> String {
        var pairs = zip(names, values).map { ($0, $1) }
        if let extra { pairs.append(extra) }
        guard !pairs.isEmpty else { return "" }
        let body = pairs.map { name, value in
            "\(name)=\"\(value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n"))\""
        }
        return "{" + body.joined(separator: ",") + "}"
    }

    /// A sample value as Prometheus writes it.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

protocol MetricFamily: Sendable {
    var name: String { get }
    var help: String { get }
    var type: String { get }
    func renderSamples(into out: inout String)
}

/// A monotonically increasing count per label set.
public final class CounterFamily: MetricFamily {
    let name: String
    let help: String
    let labelNames: [String]
    var type: String { "counter" }
    private let values = Mutex<[[String]: Double]>([:])

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
    }

    /// Adds `amount` (which must not be negative) to the series with these label values, in `labels` order.
    public func increment(_ labels: [String] = [], by amount: Double = 1) {
        precondition(labels.count == labelNames.count, "\(name): expected labels \(labelNames)")
        values.withLock { $0[labels, default: 0] += amount }
    }

    public func value(_ labels: [String] = []) -> Double {
        values.withLock { $0[labels] ?? 0 }
    }

    func renderSamples(into out: inout String) {
        let snapshot = values.withLock { $0 }
        for (labels, value) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            out += "\(name)\(MetricsRegistry.labelText(labelNames, labels)) \(MetricsRegistry.number(value))\n"
        }
    }
}

/// Observations counted into cumulative buckets per label set, with their sum and count.
public final class HistogramFamily: MetricFamily {
    struct Series {
        var bucketCounts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0

        mutating func record(_ value: Double, inBucket index: Int) {
            bucketCounts[index] += 1
            sum += value
            count += 1
        }
    }

    let name: String
    let help: String
    let labelNames: [String]
    let buckets: [Double]
    var type: String { "histogram" }
    private let series = Mutex<[[String]: Series]>([:])

    init(name: String, help: String, labelNames: [String], buckets: [Double]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.buckets = buckets.sorted()
    }

    public func observe(_ value: Double, _ labels: [String] = []) {
        precondition(labels.count == labelNames.count, "\(name): expected labels \(labelNames)")
        // The first bucket whose upper bound holds the value; counts are made cumulative when rendered.
        let index = buckets.firstIndex(where: { value <= $0 }) ?? buckets.count
        let slots = buckets.count + 1
        series.withLock { all in
            all[labels, default: Series(bucketCounts: Array(repeating: 0, count: slots))].record(value, inBucket: index)
        }
    }

    /// The number of observations with these labels.
    public func count(_ labels: [String] = []) -> UInt64 {
        series.withLock { $0[labels]?.count ?? 0 }
    }

    func renderSamples(into out: inout String) {
        let snapshot = series.withLock { $0 }
        for (labels, entry) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var cumulative: UInt64 = 0
            for (index, bound) in buckets.enumerated() {
                cumulative += entry.bucketCounts[index]
                out += "\(name)_bucket\(MetricsRegistry.labelText(labelNames, labels, extra: ("le", MetricsRegistry.number(bound)))) \(cumulative)\n"
            }
            out += "\(name)_bucket\(MetricsRegistry.labelText(labelNames, labels, extra: ("le", "+Inf"))) \(entry.count)\n"
            out += "\(name)_sum\(MetricsRegistry.labelText(labelNames, labels)) \(MetricsRegistry.number(entry.sum))\n"
            out += "\(name)_count\(MetricsRegistry.labelText(labelNames, labels)) \(entry.count)\n"
        }
    }
}

/// A value read at scrape time.
/// Series read when scraped: gauges, and counters that another component keeps.
final class GaugeFamily: MetricFamily {
    let name: String
    let help: String
    let type: String
    let labelNames: [String]
    let read: @Sendable () -> [(labels: [String], value: Double)]

    init(name: String, help: String, type: String, labelNames: [String],
         read: @escaping @Sendable () -> [(labels: [String], value: Double)]) {
        self.name = name
        self.help = help
        self.type = type
        self.labelNames = labelNames
        self.read = read
    }

    func renderSamples(into out: inout String) {
        for series in read() {
            out += "\(name)\(MetricsRegistry.labelText(labelNames, series.labels)) \(MetricsRegistry.number(series.value))\n"
        }
    }
}

extension String {
    /// Every occurrence of `target` replaced, without Foundation.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
