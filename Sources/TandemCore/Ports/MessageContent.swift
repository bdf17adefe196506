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
    public var presentation: PushPresentation { boxed?.value ?? PushPresentation.empty }
    /// The presentation behind one reference, nil when empty: a content is copied into every delivery, event
    /// and request of a message, and the presentation's two dozen fields inline made each copy cost a retain
    /// per field (most messages have none).
    private let boxed: PresentationBox?

    public init(messageID: GUID, sender: String, body: String, reference: String?, app: AppKey? = nil,
                forceUCS2: Bool = false, presentation: PushPresentation = PushPresentation()) {
        self.messageID = messageID
        self.sender = sender
        self.body = body
        self.reference = reference
        self.app = app
        self.forceUCS2 = forceUCS2
        self.boxed = presentation.isEmpty ? nil : PresentationBox(presentation)
    }

    public static func == (lhs: MessageContent, rhs: MessageContent) -> Bool {
        lhs.messageID == rhs.messageID && lhs.sender == rhs.sender && lhs.body == rhs.body && lhs.reference == rhs.reference
            && lhs.app == rhs.app && lhs.forceUCS2 == rhs.forceUCS2
            && (lhs.boxed === rhs.boxed || lhs.presentation == rhs.presentation)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(messageID)
        hasher.combine(sender)
        hasher.combine(body)
        hasher.combine(reference)
        hasher.combine(app)
        hasher.combine(forceUCS2)
        hasher.combine(presentation)
    }
}

/// An immutable presentation shared by the copies of one ``MessageContent``.
private final class PresentationBox: Sendable {
    let value: PushPresentation
    init(_ value: PushPresentation) { self.value = value }
}

extension GUID: TextCodable {}
