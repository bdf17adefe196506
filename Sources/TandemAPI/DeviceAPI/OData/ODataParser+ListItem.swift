/// One comma-separated item of `$orderby` or `$select`, split into words, with positions (0-based
/// Unicode scalar offsets into the option value) for error messages.
struct ListItem: Sendable, Hashable {
    struct Word: Sendable, Hashable {
        let text: String
        let position: Int
    }

    /// Never empty: an empty item is refused by ``split(_:option:)``.
    let words: [Word]

    /// Splits at commas, then at whitespace (space, tab, CR, LF and `+`); an empty value or an empty
    /// item (`ID,,Body`, a trailing comma) is an error.
    static func split(_ value: String, option: ODataOption) throws(ODataError) -> [ListItem] {
        let scalars = Array(value.unicodeScalars)
        guard scalars.contains(where: { !isSpace($0) }) else {
            throw .malformed(option, "empty value", position: nil)
        }
        var items: [ListItem] = []
        var words: [Word] = []
        var wordStart: Int?
        func closeWord(at end: Int) {
            guard let start = wordStart else { return }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[start..<end])
            words.append(Word(text: String(view), position: start))
            wordStart = nil
        }
        for position in 0...scalars.count {
            let scalar: Unicode.Scalar? = position < scalars.count ? scalars[position] : nil
            if scalar == nil || scalar == "," {
                closeWord(at: position)
                guard !words.isEmpty else { throw .malformed(option, "empty item", position: position) }
                items.append(ListItem(words: words))
                words = []
            } else if let scalar, isSpace(scalar) {
                closeWord(at: position)
            } else if wordStart == nil {
                wordStart = position
            }
        }
        return items
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\n" || scalar == "+"
    }
}
