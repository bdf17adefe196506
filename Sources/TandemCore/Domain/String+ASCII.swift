extension String {
    /// The string without leading and trailing ASCII spaces, tabs and line breaks (by Unicode scalar, so a
    /// `\r\n` pair goes too); the string itself, not a copy, when there is nothing to trim.
    public func trimmingASCIISpaces() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        let end = scalars.index(after: last)
        if first == scalars.startIndex && end == scalars.endIndex { return self }
        return String(Substring(scalars[first..<end]))
    }
}
