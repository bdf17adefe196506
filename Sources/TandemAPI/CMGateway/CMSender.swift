import TandemCore

/// The `from` of a message: an alphanumeric sender name or a numeric sender (a phone number or short code).
///
/// Accepted, after trimming surrounding spaces:
/// - alphanumeric: 1–11 characters, ASCII letters, digits and spaces, at least one letter (`CM Telecom`);
/// - numeric: 1–16 digits with an optional leading `+` (`+31612345678`, `0031612345678`, `3669`).
///
/// Not accepted: punctuation (`cm.com`), non-ASCII letters, or digits mixed with `-`; CM documents `from` as
/// `[a-zA-Z0-9 ]` and operators differ on anything else. Not checked: whether the account may use the name.
public struct CMSender: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case alphanumeric
        case numeric
    }

    /// As sent, trimmed.
    public let text: String
    public let kind: Kind

    public init?(_ raw: String) {
        let text = raw.trimmingASCIISpaces()
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        let digits = bytes.first == UInt8(ascii: "+") ? bytes.dropFirst() : bytes[...]
        if !digits.isEmpty, digits.count <= 16, digits.allSatisfy(Self.isDigit) {
            self.text = text
            self.kind = .numeric
            return
        }
        guard bytes.count <= 11,
              bytes.allSatisfy({ Self.isDigit($0) || Self.isLetter($0) || $0 == UInt8(ascii: " ") }),
              bytes.contains(where: Self.isLetter) else { return nil }
        self.text = text
        self.kind = .alphanumeric
    }

    public var description: String { text }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
}
