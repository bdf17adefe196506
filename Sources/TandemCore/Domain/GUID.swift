/// A 128-bit identifier in the 8-4-4-4-12 hexadecimal form CM.com uses for product tokens, app keys and
/// device ids (`00000000-0000-0000-0000-000000000000`).
///
/// Parsing accepts either case and normalises to lower case; it does not require a particular UUID version.
public struct GUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The canonical lower-case text.
    public let text: String

    /// Parses the 36-character hyphenated form; nil for anything else (no braces, no bare 32 hex digits).
    public init?(_ text: String) {
        guard text.utf8.count == 36 else { return nil }
        let checked: Bool?
        if let contiguous = text.utf8.withContiguousStorageIfAvailable(Self.check) {
            checked = contiguous
        } else {
            checked = Array(text.utf8).withUnsafeBufferPointer(Self.check)
        }
        guard let upperCase = checked else { return nil }
        self.text = upperCase ? text.lowercased() : text
    }

    /// Whether `bytes` are the hyphenated form: nil if not, else whether any hex digit is upper case.
    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard bytes.count == 36 else { return nil }
        var upperCase = false
        for index in 0..<36 {
            let byte = bytes[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                guard byte.isHexDigit else { return nil }
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") { upperCase = true }
            }
        }
        return upperCase
    }

    /// A random version-4 GUID drawn from `generator`; pass `SystemRandomNumberGenerator` for secrets.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> GUID {
        // Two 64-bit draws (two getrandom calls for the system generator, not sixteen).
        let (high, low) = (generator.next(), generator.next())
        return GUID(high: (high & ~0xF000) | 0x4000, low: low)
    }

    /// A version-7 GUID (RFC 9562 §5.7): the 48-bit Unix time in milliseconds, then 74 random bits. GUIDs
    /// made later sort after earlier ones (the text too, being fixed-width lower-case hex), so an index on
    /// them grows at its end instead of touching a random page per insert — what message ids need. Not for
    /// secrets: the time is readable, and only 74 bits are random.
    public static func timeOrdered<G: RandomNumberGenerator>(unixMilliseconds: Int64, using generator: inout G) -> GUID {
        let (randomHigh, low) = (generator.next(), generator.next())
        let time = UInt64(clamping: max(0, unixMilliseconds)) & 0xFFFF_FFFF_FFFF
        return GUID(high: time << 16 | 0x7000 | (randomHigh & 0x0FFF), low: low)
    }

    /// The variant bits (RFC 9562 `10`) are set here; `high` carries the version nibble already.
    private init(high: UInt64, low: UInt64) {
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for index in 0..<16 {
            let byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * (7 - index % 8)))
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        // Well-formed by construction.
        self.init(uncheckedText: String(decoding: text, as: UTF8.self))
    }

    private init(uncheckedText: String) { self.text = uncheckedText }

    public var description: String { text }
    public static func < (lhs: GUID, rhs: GUID) -> Bool { lhs.text < rhs.text }
}

extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
