/// Why the intake refused a whole message (every recipient of it): a closed set, which each API adapter
/// maps to its own wire codes.
public enum MessageRejection: Error, Sendable, Hashable {
    /// The `appKey` names no app of the sending account (another account's app is indistinguishable from none).
    case unknownApp(AppKey)
    /// The validity ended before the message was accepted.
    case validityPassed
    /// `fallbackFor` was given without allowing SMS only.
    case fallbackRequiresSMSOnly
    /// `fallbackFor` names no earlier message of the account (by id or reference).
    case fallbackTargetNotFound(String)
    /// A push address, registration or group recipient without an app to push for.
    case appRequiredForPushRecipients

    /// A sentence for the sender.
    public var details: String {
        switch self {
        case .unknownApp(let key): "appKey \(key.text) is not an app of this account"
        case .validityPassed: "validity has already passed"
        case .fallbackRequiresSMSOnly: #"fallbackFor requires allowedChannels ["SMS"]"#
        case .fallbackTargetNotFound(let reference): "fallbackFor: no earlier message with id or reference \(reference)"
        case .appRequiredForPushRecipients: "a push address, registration or group needs the app it belongs to"
        }
    }
}

/// Why the intake refused one recipient of an otherwise accepted message.
public enum RecipientRejection: Error, Sendable, Hashable {
    /// Only SMS could reach it, and the sending account's country rule refuses the number's region.
    case smsCountryNotAllowed(RegionCode)
    /// No registration of the message's app has this device id.
    case unknownRegistration(DeviceID)
    /// The sender named in a push address is neither an app key nor a sender id of an app of the account.
    case unknownPushApp(String)
    /// A push address names another app than the message's (one message pushes for one app).
    case otherApp(String)
    /// The message's app has no group with this name.
    case unknownGroup(String)
    /// The rendered push payload for this recipient's platform exceeds the provider's limit.
    case payloadTooLarge(Platform, bytes: Int, limit: Int)

    public var details: String {
        switch self {
        case .smsCountryNotAllowed(let region): "SMS to numbers in \(region.text) is not allowed for this account"
        case .unknownRegistration(let id): "no registration \(id.guid.text) of this app"
        case .unknownPushApp(let name): "\(name) is neither an app key nor a sender id of an app of this account"
        case .otherApp(let name): "\(name) is not the app of this message (one message pushes for one app)"
        case .unknownGroup(let name): "no recipient group \(name) of this app"
        case .payloadTooLarge(let platform, let bytes, let limit):
            "the \(platform.wireName) payload would be \(bytes) bytes, over the limit of \(limit)"
        }
    }
}
