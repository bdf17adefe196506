/// A small structured logger: one JSON object per line (or one readable line, `LogFormat.text`), written
/// through an injected sink.
///
/// The core never reads a clock or touches a file: the shell passes `now` (Unix seconds) and the `sink`
/// (normally `write(2)` to stderr). A line is handed to the sink whole, so lines from concurrent callers do
/// not interleave as long as the sink writes each in one call. Not guaranteed: ordering between threads.
public struct Logger: Sendable {
    /// A field value. MSISDNs are logged masked; secrets are never logged.
    public enum Value: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        case string(String)
        case int(Int64)
        case double(Double)
        case bool(Bool)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int64) { self = .int(value) }
        public static func msisdn(_ msisdn: MSISDN) -> Value { .string(msisdn.masked) }
    }

    public let minimumLevel: LogLevel
    public let format: LogFormat
    private let now: @Sendable () -> Double
    private let sink: @Sendable (String) -> Void
    private let context: [(String, Value)]

    public init(minimumLevel: LogLevel, format: LogFormat = .json, now: @escaping @Sendable () -> Double,
                sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.format = format
        self.now = now
        self.sink = sink
        self.context = []
    }

    private init(copying other: Logger, context: [(String, Value)]) {
        self.minimumLevel = other.minimumLevel
        self.format = other.format
        self.now = other.now
        self.sink = other.sink
        self.context = context
    }

    /// A logger that adds `fields` to every line (e.g. `["component": "http"]`); a field already in the
    /// context is replaced, so a line never carries one key twice (`component: push` then `apns` → `apns`).
    public func with(_ fields: KeyValuePairs<String, Value>) -> Logger {
        let names = Set(fields.map(\.key))
        return Logger(copying: self, context: context.filter { !names.contains($0.0) } + fields.map { ($0.key, $0.value) })
    }

    /// A logger that drops everything, for tests and tools.
    public static let discarding = Logger(minimumLevel: .error, now: { 0 }, sink: { _ in })

    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
        guard level >= minimumLevel else { return }
        let all = context + fields.map { ($0.key, $0.value) }
        switch format {
        case .json: sink(Self.line(time: now(), level: level, message: message, fields: all))
        case .text: sink(Self.textLine(time: now(), level: level, message: message, fields: all))
        }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) { log(.error, message, fields) }

    /// The JSON line (with its trailing newline) for one event.
    static func line(time: Double, level: LogLevel, message: String, fields: [(String, Value)]) -> String {
        var out = "{\"ts\":"
        out += String(format3: time)
        out += ",\"level\":\"\(level.rawValue)\",\"msg\":"
        JSONText.appendString(message, to: &out)
        for (key, value) in fields {
            out += ","
            JSONText.appendString(key, to: &out)
            out += ":"
            switch value {
            case .string(let text): JSONText.appendString(text, to: &out)
            case .int(let number): out += String(number)
            case .double(let number): out += number.isFinite ? String(number) : "null"
            case .bool(let flag): out += flag ? "true" : "false"
            }
        }
        out += "}\n"
        return out
    }
}

extension String {
    /// Seconds with millisecond precision, without Foundation formatting.
    init(format3 seconds: Double) {
        let millis = Int64((seconds * 1_000).rounded())
        let fraction = String(millis % 1_000)
        self = "\(millis / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
