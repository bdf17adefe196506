extension JSONValue: Codable {
    /// A value encodes as one string holding its compact JSON text, so that a number keeps its literal
    /// (`9.0` stays `9.0`, nothing is rounded through `Double`) and an object its members' order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(compactText)
    }

    /// Reads what ``encode(to:)`` wrote; text that is not one strict JSON value is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch JSONParser.parse(Array(text.utf8)) {
        case .success(let value): self = value
        case .failure(let error):
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not JSON: \(error.problem) at \(error.offset)")
        }
    }
}
