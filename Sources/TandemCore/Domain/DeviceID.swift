/// An app install's registration id, issued by `POST /v1.0/deviceregistrations` and sent back by the SDK in
/// the `DeviceID` header.
public struct DeviceID: GUIDIdentifier, CustomStringConvertible, TextCodable {
    public let guid: GUID

    public init(_ guid: GUID) { self.guid = guid }

    public var description: String { guid.text }
}

/// Dictionaries keyed by device encode as JSON objects (`{"<device id>": …}`), not as flat arrays.
extension DeviceID: CodingKeyRepresentable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public var codingKey: any CodingKey { Key(stringValue: guid.text) }

    public init?<T: CodingKey>(codingKey: T) {
        guard let guid = GUID(codingKey.stringValue) else { return nil }
        self.guid = guid
    }
}
