/// An app registered in the app manager: its SDK installs register devices, and senders address it by key.
public struct App: Sendable, Hashable {
    public let key: AppKey
    public let secret: AppSecret
    public let name: String
    /// The account that owns the app; only its product token may send through the app.
    public let account: ProductToken
    /// The type used when a message names none (spec: "By default Hybrid Messaging is using the messaging
    /// type you define in the APP Manager").
    public let defaultMessageType: AppMessageType
    /// Unix milliseconds.
    public let createdAt: Int64
    /// How its PIN SMS are protected against SMS pumping, and its PIN length.
    public let smsProtection: SMSProtection
    /// Another name senders may address the app by, unique within its account: SCG's `psh:…@<sender>@…`,
    /// and the FCM sender id (Firebase project number) cospace clients are told.
    public let senderID: String?

    public init(key: AppKey, secret: AppSecret, name: String, account: ProductToken,
                defaultMessageType: AppMessageType, createdAt: Int64, smsProtection: SMSProtection = SMSProtection(),
                senderID: String? = nil) {
        self.key = key
        self.secret = secret
        self.name = name
        self.account = account
        self.defaultMessageType = defaultMessageType
        self.createdAt = createdAt
        self.smsProtection = smsProtection
        self.senderID = senderID
    }
}
