/// Identifies an app in the app manager; sent by senders as `appKey` and by SDKs as the MAC `kid`.
public struct AppKey: Sendable, Hashable, CustomStringConvertible {
    public let guid: GUID

    public init(_ guid: GUID) { self.guid = guid }

    /// Parses the GUID text form; nil when it is not one.
    public init?(_ text: String) {
        guard let guid = GUID(text.trimmingASCIISpaces()) else { return nil }
        self.guid = guid
    }

    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> AppKey {
        AppKey(GUID.random(using: &generator))
    }

    public var text: String { guid.text }
    public var description: String { guid.text }
}
