import TandemCore

/// The `from` of a message: an alphanumeric sender name or a numeric sender (a phone number or short code).
///
/// Accepted, after trimming surrounding spaces:
/// - numeric: 1–16 digits with an optional leading `+` (`+31612345678`, `0031612345678`, `3669`);
/// - alphanumeric: anything else of 1–11 characters (Unicode scalars, not bytes) from `alphabet`: the GSM
///   03.38 basic character set without its control codes (LF, CR, ESC) and its ten Greek capitals, so
///   letters, digits, spaces and `@£$¥èéùìòÇØøÅå_ÆæßÉ!"#¤%&'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà` (`ACME corp.`, `B&B-Zürich`).
///
/// Why that set: CM documents `from` as "max 11 alphanumeric" and clients send `.`, `-` and `&`; an
/// alphanumeric sender travels as 7-bit GSM in the SMS header, so the basic set is what a phone can show
/// without an escape (the extension characters `{}[]~\^|€` take two septets each, so "11 characters" would
/// no longer mean 11 septets, and SMSCs differ on whether they take them in an address at all). The
/// Greek capitals are left out because they are the only basic characters outside ISO 8859-1, the form in
/// which the SMPP sender passes `source_addr` to an SMSC.
/// Not accepted: decomposed accents (`e` + U+0301; send the precomposed `é`), anything outside the set.
/// Not checked: whether the account may use the name.
public struct CMSender: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case alphanumeric
        case numeric
    }

    /// The characters an alphanumeric sender may use.
    public static let alphabet: Set<Unicode.Scalar> = Set((
        "@£$¥èéùìòÇØøÅå_ÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§"
            + "¿abcdefghijklmnopqrstuvwxyzäöñüà"
    ).unicodeScalars)

    /// Characters in an alphanumeric sender.
    public static let maximumAlphanumericLength = 11
    /// Digits in a numeric sender, after an optional `+`.
    public static let maximumDigits = 16

    /// What a refused sender is told, after its quoted text.
    public static let rule = "must be 1–11 characters from the GSM 03.38 basic alphabet (letters, digits, spaces and "
        + "@£$¥èéùìòÇØøÅå_ÆæßÉ!\"#¤%&'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà), or a number of at most 16 digits with an optional "
        + "leading +"

    /// As sent, trimmed.
    public let text: String
    public let kind: Kind

    public init?(_ raw: String) {
        let text = raw.trimmingASCIISpaces()
        guard !text.isEmpty else { return nil }
        let bytes = text.utf8
        let digits = bytes.first == UInt8(ascii: "+") ? bytes.dropFirst() : bytes[...]
        if !digits.isEmpty, digits.count <= Self.maximumDigits, digits.allSatisfy({ (0x30...0x39).contains($0) }) {
            self.text = text
            self.kind = .numeric
            return
        }
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            guard count <= Self.maximumAlphanumericLength, Self.alphabet.contains(scalar) else { return nil }
        }
        self.text = text
        self.kind = .alphanumeric
    }

    public var description: String { text }
}
