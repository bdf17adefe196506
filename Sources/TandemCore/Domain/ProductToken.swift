/// The secret an account authenticates gateway requests with (`authentication.producttoken`, `X-CM-PRODUCTTOKEN`).
public struct ProductToken: Sendable, Hashable, CustomStringConvertible {
    public let guid: GUID

    public init(_ guid: GUID) { self.guid = guid }

    /// Parses the GUID text form; nil when it is not one.
    public init?(_ text: String) {
        guard let guid = GUID(text.trimmingASCIISpaces()) else { return nil }
        self.guid = guid
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> ProductToken {
        ProductToken(GUID.random(using: &generator))
    }

    public var text: String { guid.text }
    /// Tokens are secrets: the description shows only the first group.
    public var description: String { String(guid.text.prefix(8)) + "-****" }
}
