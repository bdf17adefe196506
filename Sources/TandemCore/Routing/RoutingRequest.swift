/// What the router needs to know about one message for one recipient.
public struct RoutingRequest: Sendable, Hashable {
    public var allowedChannels: AllowedChannels
    /// The sender's `appKey`; without one a message can only go by SMS.
    public var appKey: AppKey?
    /// The sender's `appMessageType`; nil means the app's default type.
    public var messageType: AppMessageType?

    public init(allowedChannels: AllowedChannels = .all, appKey: AppKey? = nil, messageType: AppMessageType? = nil) {
        self.allowedChannels = allowedChannels
        self.appKey = appKey
        self.messageType = messageType
    }
}
