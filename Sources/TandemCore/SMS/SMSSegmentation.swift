/// How a text travels as SMS: its alphabet, its length in that alphabet's units, and how many parts it needs.
///
/// Guaranteed: `parts` is the number of parts `SMSText.split(_:alphabet:)` produces for the same text and
/// alphabet, counted by packing whole characters (an escape pair or a UTF-16 surrogate pair never straddles
/// two parts), so it can exceed `units / multipartCapacity` rounded up. An empty text is one (empty) part.
///
/// Not guaranteed: that the count fits an 8-bit concatenation header (255 parts); callers cap it.
public struct SMSSegmentation: Sendable, Hashable, CustomStringConvertible {
    public let alphabet: SMSAlphabet
    /// Septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2.
    public let units: Int
    /// At least 1.
    public let parts: Int

    public init(alphabet: SMSAlphabet, units: Int, parts: Int) {
        self.alphabet = alphabet
        self.units = units
        self.parts = parts
    }

    public var description: String { "\(alphabet) \(units) units in \(parts) part(s)" }
}
