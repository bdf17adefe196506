extension Logger {
    /// The readable line (with its trailing newline) for one event: `22:13:20.123 info  message key=value`.
    ///
    /// The time is the UTC time of day with milliseconds (the core knows no time zone); the level is padded to
    /// five characters so messages line up. A string value is written bare unless it is empty or holds a space,
    /// a quote, `=`, a backslash or a control character — then it is quoted and escaped like a JSON string.
    static func textLine(time: Double, level: LogLevel, message: String, fields: [(String, Value)]) -> String {
        var out = timeOfDay(time)
        out += " "
        out += level.rawValue
        out += String(repeating: " ", count: max(1, 6 - level.rawValue.count))
        out += message
        for (key, value) in fields {
            out += " "
            out += key
            out += "="
            switch value {
            case .string(let text): appendTextValue(text, to: &out)
            case .int(let number): out += String(number)
            case .double(let number): out += number.isFinite ? String(number) : "null"
            case .bool(let flag): out += flag ? "true" : "false"
            }
        }
        out += "\n"
        return out
    }

    /// `hh:mm:ss.mmm` of the UTC day that `time` (Unix seconds) falls in.
    static func timeOfDay(_ time: Double) -> String {
        let millis = Int64((time * 1_000).rounded())
        let dayMillis = ((millis % 86_400_000) + 86_400_000) % 86_400_000
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = dayMillis % 1_000
        let fractionText = String(repeating: "0", count: 3 - String(fraction).count) + String(fraction)
        return "\(two(dayMillis / 3_600_000)):\(two(dayMillis / 60_000 % 60)):\(two(dayMillis / 1_000 % 60)).\(fractionText)"
    }

    private static func appendTextValue(_ text: String, to out: inout String) {
        let needsQuotes = text.isEmpty || text.unicodeScalars.contains {
            $0.value <= 0x20 || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.value == 0x7F
        }
        if needsQuotes {
            JSONText.appendString(text, to: &out)
        } else {
            out += text
        }
    }
}
