/// What a sender asked to deliver: shared by every recipient of one `msg`.
public struct MessageContent: Sendable, Hashable {
    /// The message's GUID, shown to apps as `ID`.
    public let messageID: GUID
    /// `from`: an alphanumeric sender name or a number.
    public let sender: String
    public let body: String
    /// The sender's `reference`, echoed in status reports.
    public let reference: String?
    /// The `appKey` the message was sent for (whose push credentials a push uses); nil for a plain SMS.
    public let app: AppKey?
    /// CM's `dcs` 8: send the SMS as UCS-2 even when the text fits GSM-7.
    public let forceUCS2: Bool
    /// What a push shows beyond the body (stored with the message, so a push resumed after a crash renders
    /// the same payload); empty for the default payload.
    @SharedPresentation public private(set) var presentation: PushPresentation

    public init(messageID: GUID, sender: String, body: String, reference: String?, app: AppKey? = nil,
                forceUCS2: Bool = false, presentation: PushPresentation = PushPresentation()) {
        self.messageID = messageID
        self.sender = sender
        self.body = body
        self.reference = reference
        self.app = app
        self.forceUCS2 = forceUCS2
        self.presentation = presentation
    }
}

extension GUID: TextCodable {}
