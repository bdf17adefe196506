import TandemCore

/// The channel names CM's `allowedChannels` knows, and which of them Tandem carries.
///
/// Matching ignores case, spaces, `-` and `_` (`whatsapp`, `WhatsApp`, `Facebook Messenger`,
/// `facebookmessenger`). `SMS` and `Push` map to Tandem's `Channel`; the rest are recognised so that a
/// request naming only them is refused with 402 ("not supported") rather than 305 ("not a channel").
/// `MobilePush` is CM's separate mobile-push product, not hybrid app push, so it is recognised but
/// unsupported. `iMessage` is what CM's Python SDK calls Apple Messages for Business.
public enum CMChannelName: String, Sendable, Hashable, CaseIterable {
    case sms = "SMS"
    case push = "Push"
    case whatsApp = "WhatsApp"
    case rcs = "RCS"
    case viber = "Viber"
    case appleMessagesForBusiness = "Apple Messages for Business"
    case telegram = "Telegram"
    case instagram = "Instagram"
    case facebookMessenger = "Facebook Messenger"
    case googleBusinessMessages = "Google Business Messages"
    case line = "Line"
    case kakaoTalk = "KakaoTalk"
    case twitter = "Twitter"
    case voice = "Voice"
    case email = "Email"
    case mobilePush = "MobilePush"

    /// Other spellings CM clients use for the same channel.
    private var aliases: [String] {
        switch self {
        case .appleMessagesForBusiness: ["AppleBusinessChat", "iMessage"]
        case .sms, .push, .whatsApp, .rcs, .viber, .telegram, .instagram, .facebookMessenger,
             .googleBusinessMessages, .line, .kakaoTalk, .twitter, .voice, .email, .mobilePush: []
        }
    }

    /// Nil when `text` names no CM channel.
    public init?(cmText text: String) {
        let key = Self.folded(text)
        guard !key.isEmpty,
              let match = Self.allCases.first(where: { name in
                  Self.folded(name.rawValue) == key || name.aliases.contains { Self.folded($0) == key }
              }) else { return nil }
        self = match
    }

    /// The Tandem channel, or nil when Tandem does not carry this one.
    public var channel: Channel? {
        switch self {
        case .sms: .sms
        case .push: .push
        case .whatsApp, .rcs, .viber, .appleMessagesForBusiness, .telegram, .instagram, .facebookMessenger,
             .googleBusinessMessages, .line, .kakaoTalk, .twitter, .voice, .email, .mobilePush: nil
        }
    }

    private static func folded(_ text: String) -> String {
        String(text.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" && $0 != "\t" })
    }
}
