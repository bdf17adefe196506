import TandemCore

/// Shortening text to fit a push payload's byte budget, measured as the JSON string literal it becomes.
public enum PushText {
    /// What a shortened text ends with.
    public static let ellipsis = "…"

    /// The bytes `text` takes as a JSON string literal, quotes included (as `JSONText` writes it).
    public static func jsonLength(_ text: String) -> Int {
        var length = 2
        for scalar in text.unicodeScalars { length += escapedLength(scalar) }
        return length
    }

    /// `text` unchanged when its JSON literal fits in `budget` bytes; otherwise its longest prefix that
    /// ends on a `Character` (grapheme cluster) boundary and fits together with ``ellipsis``, followed by
    /// the ellipsis. An empty string when not even the ellipsis fits.
    ///
    /// Never splits a UTF-8 sequence, a combining sequence or an emoji cluster. Not guaranteed: that the
    /// cut falls between words.
    public static func truncated(_ text: String, toJSONLength budget: Int) -> String {
        if jsonLength(text) <= budget { return text }
        let room = budget - jsonLength(ellipsis)
        guard room >= 0 else { return "" }
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let character = text[index]
            var size = 0
            for scalar in character.unicodeScalars { size += escapedLength(scalar) }
            if used + size > room { break }
            used += size
            end = text.index(after: index)
        }
        return String(text[..<end]) + ellipsis
    }

    private static func escapedLength(_ scalar: Unicode.Scalar) -> Int {
        switch scalar {
        case "\"", "\\", "\n", "\r", "\t": 2
        default: scalar.value < 0x20 ? 6 : UTF8.width(scalar)
        }
    }
}
