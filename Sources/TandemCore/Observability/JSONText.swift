/// Writes JSON string literals by hand, for hot paths (log lines, small responses) where an encoder is
/// needless weight. Escapes `"`, `\` and every control character; leaves other Unicode as UTF-8.
public enum JSONText {
    public static func appendString(_ text: String, to out: inout String) {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            out += "\""
            out += text  // nothing to escape: the common case, copied whole
            out += "\""
            return
        }
        // Escaping is the byte writer's (one set of rules); the escaped bytes are UTF-8 by construction.
        var bytes: [UInt8] = []
        appendString(text, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// The same literal appended as UTF-8 bytes, for bodies built as bytes (no `String` in between). UTF-8's
    /// multi-byte sequences never contain bytes below 0x80, so escaping byte by byte is exact.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                out.append(contentsOf: bytes)  // nothing to escape: the common case, copied whole
                return
            }
            for byte in bytes {
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                case 0x09: out.append(contentsOf: [0x5C, 0x74])
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                default: out.append(byte)
                }
            }
        }
        out.append(0x22)
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var out = ""
        appendString(text, to: &out)
        return out
    }
}
