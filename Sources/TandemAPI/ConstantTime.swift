/// Comparisons whose duration does not depend on where two secrets differ.
public enum ConstantTime {
    /// True when `a` and `b` are equal. Takes time proportional to `b.count` whatever `a` holds; the length
    /// itself is not hidden.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { equals($0, b) }
    }

    /// ``equals(_:_:)`` for bytes held elsewhere (a MAC computed into a stack buffer).
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        b.withUnsafeBytes { equals(a, $0) }
    }

    /// ``equals(_:_:)`` for two buffers; takes time proportional to `b.count`.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in b.indices {
            difference |= (index < a.count ? a[index] : 0) ^ b[index]
        }
        return difference == 0
    }
}
