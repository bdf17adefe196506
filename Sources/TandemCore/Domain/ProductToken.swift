/// The secret an account authenticates gateway requests with (`authentication.producttoken`, `X-CM-PRODUCTTOKEN`).
public struct ProductToken: GUIDIdentifier, CustomStringConvertible {
    public let guid: GUID

    public init(_ guid: GUID) { self.guid = guid }

    /// Tokens are secrets: the description shows only the first group.
    public var description: String { String(guid.text.prefix(8)) + "-****" }
}
