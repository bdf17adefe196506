/// ASCII-only case-insensitive comparison for header names and similar tokens.
///
/// Non-ASCII bytes are compared exactly; no Unicode case folding is done.
enum ASCIICaseInsensitive {
    /// Whether `a` and `b` are equal when ASCII letters are compared case-insensitively.
    static func equals(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Over the contiguous UTF-8 (no copy for native strings): header lookups run several times per request.
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for index in x.indices where lowered(x[index]) != lowered(y[index]) { return false }
                return true
            }
        }
    }

    @inline(__always)
    private static func lowered(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
