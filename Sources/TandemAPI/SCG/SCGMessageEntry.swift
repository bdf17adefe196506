import TandemCore

/// One recipient's message of an SCG message request: the address it was sent to (as written in `to`) and
/// its delivery, if started.
///
/// Its id is `<message request id>-<n>`, n the address's 1-based position in `to`: stable, and enough to
/// find the delivery again without another index. Deliveries are matched to addresses by kind in order
/// (the k-th number delivery to the k-th phone address, the k-th device delivery to the k-th `psh:`
/// address), which holds also when phone numbers were spooled and started after the push addresses.
struct SCGMessageEntry: Sendable, Hashable {
    let requestID: GUID
    let position: Int
    let toAddress: String
    let fromAddress: String
    /// Nil while the address is queued in the request's spool.
    let recipient: RecipientView?

    var id: String { requestID.text + "-" + String(position) }

    var state: SCGMessageState { recipient.map { SCGMessageState.of($0.delivery) } ?? .accepted }

    /// The request's stored fields (`extra`), parsed; empty when there are none.
    static func fields(_ message: MessageView) -> [JSONMember] {
        guard let extra = message.extra, case .success(.object(let members)) = JSONParser.parse(Array(extra.utf8)) else { return [] }
        return members
    }

    /// Every recipient's message of the request, in `to` order.
    static func entries(_ message: MessageView) -> [SCGMessageEntry] {
        let fields = fields(message)
        var from = message.sender
        if case .string(let text)? = fields.first(where: { $0.key == "from" })?.value { from = text }
        var addresses: [String] = []
        if case .array(let values)? = fields.first(where: { $0.key == "to" })?.value {
            addresses = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        var numbers = message.recipients.filter { $0.recipient.msisdn != nil }.makeIterator()
        var devices = message.recipients.filter { $0.recipient.device != nil }.makeIterator()
        guard !addresses.isEmpty else {
            // No stored addresses (not an SCG request): the deliveries in their own order.
            return message.recipients.enumerated().map { index, view in
                SCGMessageEntry(requestID: message.id, position: index + 1, toAddress: address(of: view.recipient),
                                fromAddress: from, recipient: view)
            }
        }
        return addresses.enumerated().map { index, address in
            let isPush: Bool
            switch SCGAddress.parse(address) {
            case .success(.pushAddress), .success(.registration), .success(.group): isPush = true
            case .success(.msisdn), .failure: isPush = false
            }
            return SCGMessageEntry(requestID: message.id, position: index + 1, toAddress: address, fromAddress: from,
                                   recipient: isPush ? devices.next() : numbers.next())
        }
    }

    private static func address(of recipient: DeliveryRecipient) -> String {
        switch recipient {
        case .msisdn(let msisdn): msisdn.e164
        case .device(let device): "device:" + device.guid.text
        }
    }

    /// `<guid>-<n>` as a request id and a position; nil when it is not that shape.
    static func parseID(_ text: String) -> (GUID, Int)? {
        guard let dash = text.lastIndex(of: "-"), let guid = GUID(String(text[..<dash])),
              let position = Int(text[text.index(after: dash)...]), position >= 1,
              String(position) == text[text.index(after: dash)...] else { return nil }
        return (guid, position)
    }

    // MARK: Times and failures

    /// When a provider took the message: the first push acceptance or SMS submission.
    var sentDate: Timestamp? {
        recipient?.events.first(where: { $0.kind == "pushAccepted" || $0.kind == "smsSubmitted" })?.at
    }

    /// When it was delivered: the first delivery ack or read, or the SMS report that made it delivered.
    var deliveredDate: Timestamp? {
        guard let recipient else { return nil }
        switch state {
        case .delivered, .read:
            if let ack = recipient.events.first(where: { $0.kind == "deliveryAcknowledged" || $0.kind == "readReported" }) {
                return ack.at
            }
            return recipient.events.last(where: { $0.kind == "smsReportReceived" || $0.kind == "smsPartReported" })?.at
                ?? recipient.updatedAt
        case .accepted, .sent, .failed, .expired, .canceled:
            return nil
        }
    }

    /// For `FAILED` and `EXPIRED`: how it ended (the resolution's name) and a sentence.
    var failure: (code: String, details: String)? {
        guard let delivery = recipient?.delivery, let resolution = delivery.resolution else { return nil }
        switch SCGMessageState.of(resolution) {
        case .failed, .expired: break
        case .accepted, .sent, .delivered, .read, .canceled: return nil
        }
        return (resolution.rawValue, Self.details(resolution, delivery))
    }

    private static func details(_ resolution: Resolution, _ delivery: Delivery) -> String {
        switch resolution {
        case .rejected:
            switch delivery.rejectReason {
            case .noPushableDevice?: return "no pushable device for this recipient and no SMS allowed"
            case .noAppKey?: return "push only, and no application_id was given"
            case .smsCountryNotAllowed?: return "SMS to this number's country is not allowed for this account"
            case .unknownApp?: return "the app is not an app of this account"
            case .noSupportedChannel?, .noFallback?, nil: return "no channel could take the message"
            }
        case .pushFailed:
            let rejections = delivery.devices.compactMap(\.progress.rejection)
            if rejections.contains(.tokenDead) {
                return "the push service declared the device token invalid (unregistered); the registration is now Invalid"
            }
            return rejections.contains(.transient) ? "the push service kept failing temporarily" : "the push service refused the push"
        case .smsFailed: return "the SMSC reported the SMS failed"
        case .smsReportMissing: return "no final SMS report came by the end of the SMS's validity"
        case .lifetimeExpired: return "the push's lifetime ended without a delivery acknowledgement"
        case .smsExpired: return "the SMSC reported the SMS's validity ended"
        case .validityExpired: return "expiry_time passed before delivery"
        case .deliveredByPush, .readByPush, .deliveredBySMS, .withdrawn, .cancelled: return resolution.rawValue
        }
    }
}
