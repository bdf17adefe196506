extension SMPPPDU {
    /// The header of a PDU whose body may not have arrived yet.
    struct Header: Sendable, Hashable {
        let length: UInt32
        let commandID: SMPPCommandID
        let status: SMPPCommandStatus
        let sequence: UInt32
    }

    static let headerLength = 16
    /// The longest PDU accepted: a `deliver_sm` with a 254-octet message and generous TLVs fits many
    /// times over. A longer `command_length` means the stream is out of step.
    static let maximumLength: UInt32 = 64 * 1024

    /// Reads the header at the start of `bytes` (at least 16 octets).
    static func header(_ bytes: ArraySlice<UInt8>) throws(SMPPDecodingError) -> Header {
        precondition(bytes.count >= headerLength)
        let start = bytes.startIndex
        func word(_ offset: Int) -> UInt32 {
            bytes[start + offset..<start + offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let length = word(0)
        guard length >= UInt32(headerLength), length <= maximumLength else { throw .invalidLength(length) }
        return Header(length: length, commandID: SMPPCommandID(rawValue: word(4)),
                      status: SMPPCommandStatus(rawValue: word(8)), sequence: word(12))
    }

    /// Decodes one whole PDU (`bytes.count == command_length`).
    static func decode(_ bytes: [UInt8]) throws(SMPPDecodingError) -> SMPPPDU {
        guard bytes.count >= headerLength else { throw .truncated(field: "header") }
        let header = try header(bytes[...])
        guard header.length == UInt32(bytes.count) else { throw .invalidLength(header.length) }
        return try decode(header: header, body: Array(bytes[headerLength...]))
    }

    /// Decodes a body whose header was read with `header(_:)`.
    static func decode(header: Header, body bytes: [UInt8]) throws(SMPPDecodingError) -> SMPPPDU {
        var reader = SMPPWireReader(bytes)
        let body: Body
        switch header.commandID {
        case .bindTransceiver:
            body = .bindTransceiver(try SMPPBindRequest.decode(from: &reader))
        case .bindTransceiverResp:
            let systemID = reader.isAtEnd ? "" : try reader.cString("system_id", maximum: 16)
            body = .bindTransceiverResp(systemID: systemID, tlvs: try reader.tlvs())
        case .submitSM:
            body = .submitSM(try SMPPShortMessage.decode(from: &reader))
        case .submitSMResp:
            body = .submitSMResp(messageID: reader.isAtEnd ? "" : try reader.cString("message_id", maximum: 65))
        case .deliverSM:
            body = .deliverSM(try SMPPShortMessage.decode(from: &reader))
        case .deliverSMResp:
            body = .deliverSMResp
        case .unbind:
            body = .unbind
        case .unbindResp:
            body = .unbindResp
        case .enquireLink:
            body = .enquireLink
        case .enquireLinkResp:
            body = .enquireLinkResp
        case .genericNack:
            body = .genericNack
        default:
            body = .other(header.commandID, bytes)
        }
        return SMPPPDU(body, sequence: header.sequence, status: header.status)
    }
}
