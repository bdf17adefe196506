/// An SMPP 3.4 `command_id` (§5.1.2.1). A response's id is its request's id with bit 31 set.
///
/// A struct rather than an enum so that ids this client does not know (`query_sm`, vendor
/// commands) still decode and can be answered with `generic_nack`.
public struct SMPPCommandID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let genericNack = SMPPCommandID(rawValue: 0x8000_0000)
    public static let bindReceiver = SMPPCommandID(rawValue: 0x0000_0001)
    public static let bindTransmitter = SMPPCommandID(rawValue: 0x0000_0002)
    public static let submitSM = SMPPCommandID(rawValue: 0x0000_0004)
    public static let submitSMResp = SMPPCommandID(rawValue: 0x8000_0004)
    public static let deliverSM = SMPPCommandID(rawValue: 0x0000_0005)
    public static let deliverSMResp = SMPPCommandID(rawValue: 0x8000_0005)
    public static let unbind = SMPPCommandID(rawValue: 0x0000_0006)
    public static let unbindResp = SMPPCommandID(rawValue: 0x8000_0006)
    public static let bindTransceiver = SMPPCommandID(rawValue: 0x0000_0009)
    public static let bindTransceiverResp = SMPPCommandID(rawValue: 0x8000_0009)
    public static let enquireLink = SMPPCommandID(rawValue: 0x0000_0015)
    public static let enquireLinkResp = SMPPCommandID(rawValue: 0x8000_0015)

    /// True for responses (bit 31 set), including `generic_nack`.
    public var isResponse: Bool { rawValue & 0x8000_0000 != 0 }

    /// The id of the response to this request.
    public var response: SMPPCommandID { SMPPCommandID(rawValue: rawValue | 0x8000_0000) }

    public var description: String {
        switch rawValue {
        case 0x8000_0000: "generic_nack"
        case 0x0000_0001: "bind_receiver"
        case 0x0000_0002: "bind_transmitter"
        case 0x0000_0004: "submit_sm"
        case 0x8000_0004: "submit_sm_resp"
        case 0x0000_0005: "deliver_sm"
        case 0x8000_0005: "deliver_sm_resp"
        case 0x0000_0006: "unbind"
        case 0x8000_0006: "unbind_resp"
        case 0x0000_0009: "bind_transceiver"
        case 0x8000_0009: "bind_transceiver_resp"
        case 0x0000_0015: "enquire_link"
        case 0x8000_0015: "enquire_link_resp"
        default: "command 0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}
