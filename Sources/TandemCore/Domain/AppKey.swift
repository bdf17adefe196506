/// Identifies an app in the app manager; sent by senders as `appKey` and by SDKs as the MAC `kid`.
public struct AppKey: GUIDIdentifier, CustomStringConvertible {
    public let guid: GUID

    public init(_ guid: GUID) { self.guid = guid }

    public var description: String { guid.text }
}
