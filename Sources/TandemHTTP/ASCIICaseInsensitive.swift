/// ASCII-only case-insensitive comparison for header names and similar tokens.
///
/// Non-ASCII bytes are compared exactly; no Unicode case folding is done.
enum ASCIICaseInsensitive {
    /// Whether `a` and `b` are equal when ASCII letters are compared case-insensitively.
    static func equals(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        var i = x.startIndex
        var j = y.startIndex
        while i != x.endIndex {
            if lowered(x[i]) != lowered(y[j]) { return false }
            x.formIndex(after: &i)
            y.formIndex(after: &j)
        }
        return true
    }

    @inline(__always)
    private static func lowered(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
