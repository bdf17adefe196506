/// A value that travels as one validated string (GUIDs, device ids, push tokens): encoded as its text,
/// decoded by parsing, and refused with `dataCorrupted` when the text does not parse.
public protocol TextCodable: Codable {
    init?(_ text: String)
    var text: String { get }
}

extension TextCodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a valid \(Self.self)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
