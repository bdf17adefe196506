import TandemCore

/// A delivery receipt read from a `deliver_sm` whose `esm_class` says SMSC delivery receipt: the
/// `receipted_message_id` (0x001E) and `message_state` (0x0427) TLVs where present, else the
/// corresponding fields of the receipt text (`SMPPReceiptText`) — field by field, so an SMSC that sends
/// only one of the TLVs still works.
///
/// Not guaranteed: that the text and the TLVs agree when both are present (the TLVs win).
struct SMPPDeliveryReceipt: Sendable, Hashable {
    /// The id as the SMSC wrote it, which should be the `submit_sm_resp` id.
    let messageID: String
    let state: SMPPMessageState
    /// The provider's own words for the event log: `stat:UNDELIV err:001`.
    let detail: String

    enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case missingID
        case missingState
        case unknownState(String)

        var description: String {
            switch self {
            case .missingID: "receipt has neither receipted_message_id nor an id: in its text"
            case .missingState: "receipt has neither message_state nor a stat: in its text"
            case .unknownState(let word): "receipt state \(word) is not an SMPP 3.4 message state"
            }
        }
    }

    /// Nil for a `deliver_sm` that is not a delivery receipt (a mobile-originated message).
    static func read(_ message: SMPPShortMessage) -> Result<SMPPDeliveryReceipt, Problem>? {
        guard message.isDeliveryReceipt else { return nil }
        let text = SMPPReceiptText.parse(Self.text(of: message))
        let tlvID = message.tlv(.receiptedMessageID)?.text
        guard let id = (tlvID?.isEmpty == false ? tlvID : nil) ?? text?.id else { return .failure(.missingID) }

        let state: SMPPMessageState
        if let value = message.tlv(.messageState)?.integer {
            state = SMPPMessageState(rawValue: UInt8(truncatingIfNeeded: value))
            guard state.verdict != nil, value <= 0xFF else { return .failure(.unknownState(String(value))) }
        } else if let word = text?.stat {
            guard let named = SMPPMessageState(receiptWord: word) else { return .failure(.unknownState(word)) }
            state = named
        } else {
            return .failure(.missingState)
        }
        var detail = "stat:" + (text?.stat ?? state.receiptWord)
        if let err = text?.err { detail += " err:" + err }
        return .success(SMPPDeliveryReceipt(messageID: id, state: state, detail: detail))
    }

    /// `short_message` (or `message_payload`) as text: UTF-16BE for `data_coding` 8, else octet by octet
    /// (receipt texts are ASCII).
    private static func text(of message: SMPPShortMessage) -> String {
        let octets = message.shortMessage.isEmpty ? (message.tlv(.messagePayload)?.value ?? []) : message.shortMessage
        if message.dataCoding == 8 {
            let units = stride(from: 0, to: octets.count - 1, by: 2).map { UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        }
        return String(octets.map { Character(Unicode.Scalar($0)) })
    }
}
