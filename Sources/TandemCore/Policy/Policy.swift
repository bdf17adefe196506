/// What one `appMessageType` does, as data (`Policies/default.json`, `otp.json`, `critical.json`).
///
/// The router and the delivery state machine read these values; nothing about Default, OTP or Critical is
/// hard-coded elsewhere. A policy only describes behaviour: it does not guarantee that a provider honours
/// the TTL exactly (APNs and FCM treat it as an upper bound).
public struct Policy: Sendable, Hashable {
    /// How long something may live: as long as the push provider allows, or a fixed span.
    public enum Lifetime: Sendable, Hashable {
        case providerMaximum
        case limited(Duration)

        /// The span, or nil for the provider's maximum.
        public var duration: Duration? {
            switch self {
            case .providerMaximum: nil
            case .limited(let duration): duration
            }
        }
    }

    /// APNs priority 10 / FCM `high` versus APNs 5 / FCM `normal`.
    public enum PushPriority: String, Sendable, Hashable, CaseIterable {
        case high
        case normal
    }

    /// When the SMS goes out without the sender asking.
    public struct Fallback: Sendable, Hashable {
        /// SMS when the push cannot be delivered: no pushable verified device, the provider declares every
        /// token dead, or the app reports notifications disabled.
        public var onPushFailure: Bool
        /// SMS when no delivery ack arrives within this span of the push being sent.
        public var afterNoDeliveryAck: Duration?
        /// SMS when no read (or other interaction) arrives within this span of the push being sent.
        public var afterNoRead: Duration?

        public init(onPushFailure: Bool, afterNoDeliveryAck: Duration? = nil, afterNoRead: Duration? = nil) {
            self.onPushFailure = onPushFailure
            self.afterNoDeliveryAck = afterNoDeliveryAck
            self.afterNoRead = afterNoRead
        }
    }

    /// What a sender's explicit request for the SMS (manual fallback) does.
    public enum ManualFallback: String, Sendable, Hashable, CaseIterable {
        /// The request is refused: this type falls back by itself or not at all.
        case notAllowed
        /// The SMS goes out and the push stays as it is (the recipient may see both).
        case keepPush
        /// The SMS goes out and the push is terminated: not sent if still queued, otherwise marked
        /// Cancelled and its content withheld from the app (spec: OTP).
        case terminatePush
    }

    public var messageType: AppMessageType
    /// Passed to the push provider (APNs `apns-expiration`, FCM `android.ttl`).
    public var pushTTL: Lifetime
    public var pushPriority: PushPriority
    /// How long Tandem keeps the delivery open; at its end an undelivered push is final (Failed, expired).
    public var lifetime: Lifetime
    public var fallback: Fallback
    public var manualFallback: ManualFallback

    public init(messageType: AppMessageType, pushTTL: Lifetime, pushPriority: PushPriority, lifetime: Lifetime,
                fallback: Fallback, manualFallback: ManualFallback) {
        self.messageType = messageType
        self.pushTTL = pushTTL
        self.pushPriority = pushPriority
        self.lifetime = lifetime
        self.fallback = fallback
        self.manualFallback = manualFallback
    }
}
