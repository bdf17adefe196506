import TandemCore

/// One valid `msg`: every field parsed and checked, ready for the handler to turn into deliveries.
///
/// Guaranteed: `recipients` holds 1–1,000 entries (each with its own result); `body` is non-empty;
/// `1 ≤ minimumParts ≤ maximumParts ≤ 8` and `segmentation.parts ≤ maximumParts`; `allowedChannels` is
/// `.all` or names at least one channel Tandem carries; text fields are within CM's lengths.
/// Not guaranteed: that any recipient is valid, that the app key exists or belongs to the account, that an
/// absolute validity lies in the future, or that `fallbackFor` names an existing message.
public struct CMMessage: Sendable, Hashable {
    public let from: CMSender
    public let recipients: [CMRecipient]
    /// `body.content`, exactly as sent.
    public let body: String
    public let bodyType: CMBodyType
    /// The sender's reference (≤ 32 characters, no control characters), echoed in responses and reports.
    public let reference: String?
    /// Free tags (≤ 100 characters each) the sender filters reports by.
    public let customGrouping: String?
    public let customGrouping2: String?
    public let customGrouping3: String?
    /// `minimumNumberOfMessageParts`, 1 when absent. Recorded for the sender; a shorter text is not padded.
    public let minimumParts: Int
    /// `maximumNumberOfMessageParts`, 8 when absent: a long text is sent whole (up to 8 parts) rather than
    /// refused, which is what senders that omit the field expect from CM.
    public let maximumParts: Int
    public let validity: CMValidity?
    /// 0 or 8 when sent; 8 forces UCS-2.
    public let dcs: Int?
    public let allowedChannels: AllowedChannels
    public let appKey: AppKey?
    public let appMessageType: AppMessageType?
    /// `richContent` (JSON requests only) as compact JSON text, members in the order sent.
    public let richContent: String?
    /// Tandem's extension: the reference or message id of an earlier message this one is the manual SMS
    /// fallback for (OTP: sending it terminates that message's push).
    public let fallbackFor: String?
    /// How `body` travels as SMS (`dcs` 8 forces UCS-2).
    public let segmentation: SMSSegmentation
    /// Tandem's extension (JSON requests only): SCG's `options` map, as the push's presentation.
    public let presentation: PushPresentation

    public init(from: CMSender, recipients: [CMRecipient], body: String, bodyType: CMBodyType = .auto,
                reference: String? = nil, customGrouping: String? = nil, customGrouping2: String? = nil,
                customGrouping3: String? = nil, minimumParts: Int = 1, maximumParts: Int = 8,
                validity: CMValidity? = nil, dcs: Int? = nil, allowedChannels: AllowedChannels = .all,
                appKey: AppKey? = nil, appMessageType: AppMessageType? = nil, richContent: String? = nil,
                fallbackFor: String? = nil, segmentation: SMSSegmentation, presentation: PushPresentation = PushPresentation()) {
        self.from = from
        self.recipients = recipients
        self.body = body
        self.bodyType = bodyType
        self.reference = reference
        self.customGrouping = customGrouping
        self.customGrouping2 = customGrouping2
        self.customGrouping3 = customGrouping3
        self.minimumParts = minimumParts
        self.maximumParts = maximumParts
        self.validity = validity
        self.dcs = dcs
        self.allowedChannels = allowedChannels
        self.appKey = appKey
        self.appMessageType = appMessageType
        self.richContent = richContent
        self.fallbackFor = fallbackFor
        self.segmentation = segmentation
        self.presentation = presentation
    }
}
