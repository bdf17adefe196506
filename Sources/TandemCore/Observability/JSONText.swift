/// Writes JSON string literals by hand, for hot paths (log lines, small responses) where an encoder is
/// needless weight. Escapes `"`, `\` and every control character; leaves other Unicode as UTF-8.
public enum JSONText {
    private static let escapes: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"]

    public static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            if let escape = escapes[scalar] {
                out += escape
            } else if scalar.value < 0x20 {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var out = ""
        appendString(text, to: &out)
        return out
    }
}
