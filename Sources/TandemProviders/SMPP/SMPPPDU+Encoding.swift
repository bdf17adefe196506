extension SMPPPDU {
    /// The PDU's octets: header, then body.
    func encoded() -> [UInt8] {
        Self.frame(commandID, status: status, sequence: sequence, body: encodedBody())
    }

    /// The body's octets, without the header.
    func encodedBody() -> [UInt8] {
        var writer = SMPPWireWriter()
        switch body {
        case .bindTransceiver(let request):
            request.encode(into: &writer)
        case .bindTransceiverResp(let systemID, let tlvs):
            writer.cString(systemID)
            for tlv in tlvs { writer.tlv(tlv) }
        case .submitSM(let message), .deliverSM(let message):
            message.encode(into: &writer)
        case .submitSMResp(let messageID):
            writer.cString(messageID)
        case .deliverSMResp:
            writer.u8(0) // message_id: unused, set to NULL (§4.6.2)
        case .unbind, .unbindResp, .enquireLink, .enquireLinkResp, .genericNack:
            break
        case .other(_, let octets):
            writer.raw(octets)
        }
        return writer.bytes
    }

    /// A header for `body` (already encoded) followed by it.
    static func frame(_ commandID: SMPPCommandID, status: SMPPCommandStatus = .ok, sequence: UInt32,
                      body: [UInt8]) -> [UInt8] {
        var writer = SMPPWireWriter(capacity: 16 + body.count)
        appendFrame(commandID, status: status, sequence: sequence, body: body, to: &writer)
        return writer.bytes
    }

    /// The same, appended to `writer` (to send several PDUs in one write).
    static func appendFrame(_ commandID: SMPPCommandID, status: SMPPCommandStatus = .ok, sequence: UInt32,
                            body: [UInt8], to writer: inout SMPPWireWriter) {
        writer.u32(UInt32(16 + body.count))
        writer.u32(commandID.rawValue)
        writer.u32(status.rawValue)
        writer.u32(sequence)
        writer.raw(body)
    }
}
