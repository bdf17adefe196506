import TandemCore

extension [JSONMember] {
    /// The values whose key equals `name` ignoring ASCII case, in order.
    func values(named name: String) -> [JSONValue] {
        compactMap { ASCIICase.equal($0.key, name) ? $0.value : nil }
    }
}

/// ASCII case-insensitive comparison without allocating (`Unicode` letters compare exactly).
enum ASCIICase {
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?): if fold(a) != fold(b) { return false }
            default: return false
            }
        }
    }

    @inline(__always)
    static func fold(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
