/// The address a push service gives an app install: an APNs device token or an FCM registration token.
///
/// Only basic sanity is checked here (1–4,096 printable ASCII characters, no spaces); the provider-specific
/// patterns are checked where registrations are accepted.
public struct PushToken: Sendable, Hashable, TextCodable, CustomStringConvertible {
    public let text: String

    public init?(_ text: String) {
        guard (1...4_096).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        self.text = text
    }

    /// Tokens address one device: logs show only the first eight characters.
    public var description: String { String(text.prefix(8)) + "…" }
}
