/// One SMPP 3.4 protocol data unit: the 16-octet header (§3.2) and a body typed by command.
///
/// Only the commands an ESME bound as transceiver sends or receives are typed; any other command
/// decodes as `.other` with its raw body, so it can be answered with `generic_nack`.
/// `command_length` is not stored: `SMPPPDU+Encoding` computes it and `SMPPPDU+Decoding` checks it.
struct SMPPPDU: Sendable, Hashable {
    var status: SMPPCommandStatus
    var sequence: UInt32
    var body: Body

    init(_ body: Body, sequence: UInt32, status: SMPPCommandStatus = .ok) {
        self.status = status
        self.sequence = sequence
        self.body = body
    }

    enum Body: Sendable, Hashable {
        case bindTransceiver(SMPPBindRequest)
        /// `system_id` is empty when the SMSC returned no body (bind refused).
        case bindTransceiverResp(systemID: String, tlvs: [SMPPTLV])
        case submitSM(SMPPShortMessage)
        /// `messageID` is empty when the SMSC returned no body (an error status).
        case submitSMResp(messageID: String)
        case deliverSM(SMPPShortMessage)
        case deliverSMResp
        case unbind
        case unbindResp
        case enquireLink
        case enquireLinkResp
        case genericNack
        /// A command this client does not interpret, with its body as received.
        case other(SMPPCommandID, [UInt8])
    }

    var commandID: SMPPCommandID {
        switch body {
        case .bindTransceiver: .bindTransceiver
        case .bindTransceiverResp: .bindTransceiverResp
        case .submitSM: .submitSM
        case .submitSMResp: .submitSMResp
        case .deliverSM: .deliverSM
        case .deliverSMResp: .deliverSMResp
        case .unbind: .unbind
        case .unbindResp: .unbindResp
        case .enquireLink: .enquireLink
        case .enquireLinkResp: .enquireLinkResp
        case .genericNack: .genericNack
        case .other(let id, _): id
        }
    }

    /// Sequence numbers run 1 … 0x7FFFFFFF and wrap back to 1 (§3.2: 0 and the top half are not used).
    static func sequence(after sequence: UInt32) -> UInt32 {
        sequence >= 0x7FFF_FFFF ? 1 : sequence + 1
    }
}
