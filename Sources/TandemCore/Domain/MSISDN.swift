/// A phone number in international form, parsed once at the edge.
///
/// Accepted input: `+` or `00` followed by the country code and subscriber number, 8 to 15 digits in all
/// (E.164 allows at most 15), with spaces or hyphens between digit groups tolerated. The canonical form is
/// `+` and the digits. Not checked: whether the country code is assigned or the number is in service.
public struct MSISDN: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The canonical form: `+` followed by 8–15 digits, the first not zero.
    public let e164: String

    public init?(_ text: String) {
        var digits = Substring(text.trimmingASCIISpaces())
        if digits.hasPrefix("+") {
            digits = digits.dropFirst()
        } else if digits.hasPrefix("00") {
            digits = digits.dropFirst(2)
        } else {
            return nil
        }
        var kept: [Character] = []
        var previousWasSeparator = true  // no separator straight after the prefix
        for character in digits {
            if character.isASCII, character.isNumber {
                kept.append(character)
                previousWasSeparator = false
            } else if character == " " || character == "-" {
                if previousWasSeparator { return nil }
                previousWasSeparator = true
            } else {
                return nil
            }
        }
        guard !previousWasSeparator, (8...15).contains(kept.count), kept.first != "0" else { return nil }
        self.e164 = "+" + String(kept)
    }

    /// The digits without the plus, as SMPP `destination_addr` with TON international expects them.
    public var digits: Substring { e164.dropFirst() }

    /// For logs: the first four digits and the last three, the rest masked (`+3161****678`).
    public var masked: String {
        let characters = Array(e164)
        return String(characters.prefix(5)) + "****" + String(characters.suffix(3))
    }

    /// Masked, so that interpolating an MSISDN into a log line never leaks it.
    public var description: String { masked }

    public static func < (lhs: MSISDN, rhs: MSISDN) -> Bool { lhs.e164 < rhs.e164 }
}
