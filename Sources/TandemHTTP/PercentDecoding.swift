/// Percent-decoding of URL components.
///
/// A `%` not followed by two hex digits is kept literally (lenient, like most
/// servers). Decoded bytes that are not valid UTF-8 become U+FFFD, so the
/// decoded text is NOT guaranteed to round-trip to the original bytes.
enum PercentDecoding {
    /// Decodes `%XX` escapes; when `plusIsSpace` (form encoding) also turns `+` into a space.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        let utf8 = text.utf8
        let needsWork = utf8.contains { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }
        guard needsWork else { return String(text) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%") {
                let h1 = utf8.index(after: i)
                if h1 != utf8.endIndex {
                    let h2 = utf8.index(after: h1)
                    if h2 != utf8.endIndex, let hi = hexValue(utf8[h1]), let lo = hexValue(utf8[h2]) {
                        out.append(hi << 4 | lo)
                        i = utf8.index(after: h2)
                        continue
                    }
                }
                out.append(byte)
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            i = utf8.index(after: i)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes and `+` (as a space) in form-encoded bytes: what ``decode(_:plusIsSpace:)`` makes
    /// of the same bytes as text, with `plusIsSpace`.
    static func decode(bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.endIndex, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
                continue
            }
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
