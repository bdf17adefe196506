/// One message as a sender API asked for it, decoded from its wire format and nothing more: the neutral
/// input of ``MessageIntake`` (in TandemEngine), whatever API it came from. The adapter has already
/// checked what its codec can check alone (syntax, lengths, the sender name); the intake checks what needs
/// the registry, the ledger or the clock, routes every recipient and stores the message.
public struct SendCommand: Sendable, Hashable {
    /// The API it arrived through (`cm`, `scg`, …): stored with the message and used as a metrics label.
    public var api: String
    /// In request order; the intake's outcome has one entry per recipient, in the same order.
    public var recipients: [Recipient]
    /// The sender shown by SMS and as the default push title.
    public var sender: String
    public var body: String
    /// What a push shows beyond the body; empty: the default payload.
    @SharedPresentation public var presentation: PushPresentation
    /// The app whose installs and credentials a push uses; nil: SMS only.
    public var appKey: AppKey?
    /// Nil: the app's default type.
    public var messageType: AppMessageType?
    public var allowedChannels: AllowedChannels
    public var validity: MessageValidity?
    /// The sender's reference, echoed in status reports and searchable.
    public var reference: String?
    /// Up to three free grouping fields (CM's `customGrouping…`; SCG's campaign).
    public var customGroupings: [String?]
    /// The body's type as the sender gave it (`Auto`, `PlainText`).
    public var bodyType: String
    /// CM's `dcs` (8 forces UCS-2 for SMS).
    public var dcs: Int?
    /// Stored as given, not used by SMS or push (CM's `richContent`, compact JSON text).
    public var richContent: String?
    /// An earlier message of the same account (its id, else its reference) that this SMS is the manual
    /// fallback for: requires `allowedChannels` SMS only.
    public var fallbackFor: String?
    /// API-specific fields the engine does not act on, as compact JSON text: stored with the message and
    /// returned in its ``MessageView``.
    public var extra: String?

    public init(api: String, recipients: [Recipient], sender: String, body: String,
                presentation: PushPresentation = PushPresentation(), appKey: AppKey? = nil,
                messageType: AppMessageType? = nil, allowedChannels: AllowedChannels = .all,
                validity: MessageValidity? = nil, reference: String? = nil, customGroupings: [String?] = [nil, nil, nil],
                bodyType: String = "Auto", dcs: Int? = nil, richContent: String? = nil, fallbackFor: String? = nil,
                extra: String? = nil) {
        self.api = api
        self.recipients = recipients
        self.sender = sender
        self.body = body
        self.presentation = presentation
        self.appKey = appKey
        self.messageType = messageType
        self.allowedChannels = allowedChannels
        self.validity = validity
        self.reference = reference
        self.customGroupings = customGroupings
        self.bodyType = bodyType
        self.dcs = dcs
        self.richContent = richContent
        self.fallbackFor = fallbackFor
        self.extra = extra
    }
}
