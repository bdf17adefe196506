/// A number range as velocity limits and conversion blocks see it: an MSISDN without its last four digits
/// (`+31612345678` → `+3161234`), so a block covers the 10,000 numbers an attacker walks through.
///
/// Not guaranteed: that a prefix lies within one operator's range — it is a plain digit prefix.
public struct NumberPrefix: Sendable, Hashable, Comparable, TextCodable, CustomStringConvertible {
    /// `+` and 4 to 11 digits, the first not zero.
    public let text: String

    public init(_ msisdn: MSISDN) {
        text = String(msisdn.e164.dropLast(4))
    }

    /// Parses a prefix as an operator writes it (`+3161234`): `+`, then 4 to 11 digits (an MSISDN has 8
    /// to 15), the first not zero.
    public init?(_ text: String) {
        let digits = text.utf8.dropFirst()
        guard text.utf8.first == UInt8(ascii: "+"), (4...11).contains(digits.count), digits.first != UInt8(ascii: "0"),
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        self.text = text
    }

    public static func < (lhs: NumberPrefix, rhs: NumberPrefix) -> Bool { lhs.text < rhs.text }
    public var description: String { text }
}
