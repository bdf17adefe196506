import Testing
import TandemCore
@testable import TandemProviders

/// PDU bytes checked against smpp34's encoder (the vectors were produced with `smpp34.SubmitSm(…).encode()`
/// and `smpp34.DeliverSm(…).encode()`, an implementation nobody here wrote) and SMPP 3.4 §4.
@Suite("SMPP PDU codec")
struct SMPPCodecTests {
    @Test("bind_transceiver carries system id, password, system type and interface version 0x34")
    func bindTransceiver() throws {
        let pdu = SMPPPDU(.bindTransceiver(SMPPBindRequest(systemID: "tandem", password: "secret", systemType: "SMS")),
                          sequence: 1)
        let expected = hexBytes("""
            00 00 00 26 00 00 00 09 00 00 00 00 00 00 00 01
            74 61 6E 64 65 6D 00  73 65 63 72 65 74 00  53 4D 53 00  34 00 00 00
            """)
        #expect(pdu.encoded() == expected)
        #expect(try SMPPPDU.decode(expected) == pdu)
    }

    @Test("a single GSM-7 submit_sm: alphanumeric sender TON 5, ESC before €, relative validity")
    func singleGSM7() throws {
        let parts = try SMPPSubmitPlan.parts(sender: "Acme", recipient: .test, body: "Hello €", forceUCS2: false,
                                             validity: .seconds(86_400), reference: 1, options: .init())
        #expect(parts.count == 1)
        let encoded = SMPPPDU(.submitSM(parts[0]), sequence: 7).encoded()
        #expect(hexString(encoded) == """
            00 00 00 48 00 00 00 04 00 00 00 00 00 00 00 07 00 05 00 41 63 6D 65 00 01 01 33 31 36 31 32 33 34 35 36 \
            37 38 00 00 00 00 00 30 30 30 30 30 31 30 30 30 30 30 30 30 30 30 52 00 01 00 00 00 08 48 65 6C 6C 6F 20 1B 65
            """)
        #expect(try SMPPPDU.decode(encoded) == SMPPPDU(.submitSM(parts[0]), sequence: 7))
    }

    @Test("forceUCS2 sends UTF-16BE with data_coding 8; a numeric sender is TON 1 NPI 1 without its +")
    func ucs2() throws {
        var options = SMPPSubmitPlan.Options()
        options.registeredDelivery = 0
        let parts = try SMPPSubmitPlan.parts(sender: "+31201234567", recipient: .test, body: "€", forceUCS2: true,
                                             validity: .seconds(5_400), reference: 1, options: options)
        let encoded = SMPPPDU(.submitSM(parts[0]), sequence: 0x7FFF_FFFF).encoded()
        #expect(hexString(encoded) == """
            00 00 00 49 00 00 00 04 00 00 00 00 7F FF FF FF 00 01 01 33 31 32 30 31 32 33 34 35 36 37 00 01 01 33 31 36 \
            31 32 33 34 35 36 37 38 00 00 00 00 00 30 30 30 30 30 30 30 31 33 30 30 30 30 30 30 52 00 00 00 08 00 02 20 AC
            """)
    }

    @Test("the second part of 161 GSM characters: esm_class 0x40, UDH 05 00 03 ref 02 02, 8 septets")
    func multipartSecondPart() throws {
        let parts = try SMPPSubmitPlan.parts(sender: "Acme", recipient: .test, body: String(repeating: "a", count: 161),
                                             forceUCS2: false, validity: .seconds(86_400), reference: 0x2A, options: .init())
        #expect(parts.count == 2)
        #expect(hexString(SMPPPDU(.submitSM(parts[1]), sequence: 2).encoded()) == """
            00 00 00 4E 00 00 00 04 00 00 00 00 00 00 00 02 00 05 00 41 63 6D 65 00 01 01 33 31 36 31 32 33 34 35 36 \
            37 38 00 40 00 00 00 30 30 30 30 30 31 30 30 30 30 30 30 30 30 30 52 00 01 00 00 00 0E 05 00 03 2A 02 02 \
            61 61 61 61 61 61 61 61
            """)
        #expect(parts[0].shortMessage.prefix(6) == [0x05, 0x00, 0x03, 0x2A, 0x02, 0x01])
        #expect(parts[0].shortMessage.count == 6 + 153)
    }

    @Test("a deliver_sm receipt from smpp34 decodes with its TLVs and text, and encodes back to the same bytes")
    func deliverReceipt() throws {
        let bytes = hexBytes("""
            00 00 00 A3 00 00 00 05 00 00 00 00 00 00 00 09 00 01 01 33 31 36 31 32 33 34 35 36 37 38 00 05 00 41 63 6D
            65 00 04 00 00 00 00 00 00 00 00 65 69 64 3A 61 62 31 32 20 73 75 62 3A 30 30 31 20 64 6C 76 72 64 3A 30 30
            31 20 73 75 62 6D 69 74 20 64 61 74 65 3A 32 34 30 31 30 31 31 32 30 30 20 64 6F 6E 65 20 64 61 74 65 3A 32
            34 30 31 30 31 31 32 30 31 20 73 74 61 74 3A 44 45 4C 49 56 52 44 20 65 72 72 3A 30 30 30 20 74 65 78 74 3A
            48 65 6C 6C 6F 00 1E 00 05 41 42 31 32 00 04 27 00 01 05
            """)
        let pdu = try SMPPPDU.decode(bytes)
        #expect(pdu.sequence == 9)
        guard case .deliverSM(let message) = pdu.body else {
            Issue.record("decoded as \(pdu.body)")
            return
        }
        #expect(message.source == "31612345678" && message.sourceTON == 1)
        #expect(message.destination == "Acme" && message.destinationTON == 5)
        #expect(message.isDeliveryReceipt)
        #expect(message.tlvs == [SMPPTLV(.receiptedMessageID, Array("AB12\0".utf8)), SMPPTLV(.messageState, [5])])
        #expect(String(decoding: message.shortMessage, as: UTF8.self).hasPrefix("id:ab12 sub:001"))
        #expect(pdu.encoded() == bytes)

        // The TLVs win over the text: id AB12 (not ab12), state 5 (UNDELIVERABLE, not DELIVRD).
        let receipt = try #require(try SMPPDeliveryReceipt.read(message)?.get())
        #expect(receipt.messageID == "AB12")
        #expect(receipt.state.verdict == .final(.failed))
        #expect(receipt.detail == "stat:DELIVRD err:000")
    }

    @Test("responses decode with and without a body; error responses may omit it")
    func responses() throws {
        let accepted = hexBytes("00 00 00 17 80 00 00 04 00 00 00 00 00 00 00 03 61 62 63 2D 31 32 00")
        #expect(try SMPPPDU.decode(accepted) == SMPPPDU(.submitSMResp(messageID: "abc-12"), sequence: 3))
        let throttled = hexBytes("00 00 00 10 80 00 00 04 00 00 00 58 00 00 00 04")
        #expect(try SMPPPDU.decode(throttled) == SMPPPDU(.submitSMResp(messageID: ""), sequence: 4, status: .throttled))
        let refused = hexBytes("00 00 00 10 80 00 00 09 00 00 00 0E 00 00 00 01")
        let decoded = try SMPPPDU.decode(refused)
        #expect(decoded.status == .invalidPassword && decoded.status.name == "ESME_RINVPASWD")
        // smpp34's bind_transceiver_resp: system id "SMSC" and sc_interface_version 0x34.
        let bound = hexBytes("00 00 00 1A 80 00 00 09 00 00 00 00 00 00 00 01 53 4D 53 43 00 02 10 00 01 34")
        #expect(try SMPPPDU.decode(bound)
            == SMPPPDU(.bindTransceiverResp(systemID: "SMSC", tlvs: [SMPPTLV(.scInterfaceVersion, [0x34])]), sequence: 1))
        #expect(SMPPPDU(.deliverSMResp, sequence: 9).encoded() == hexBytes("00 00 00 11 80 00 00 05 00 00 00 00 00 00 00 09 00"))
        #expect(SMPPPDU(.enquireLink, sequence: 5).encoded() == hexBytes("00 00 00 10 00 00 00 15 00 00 00 00 00 00 00 05"))
        #expect(SMPPPDU(.unbind, sequence: 6).encoded() == hexBytes("00 00 00 10 00 00 00 06 00 00 00 00 00 00 00 06"))
    }

    @Test("unknown commands decode as .other; bad lengths and unterminated strings are errors")
    func malformed() throws {
        let query = hexBytes("00 00 00 12 00 00 00 03 00 00 00 00 00 00 00 08 41 00")
        #expect(try SMPPPDU.decode(query).body == .other(SMPPCommandID(rawValue: 3), [0x41, 0x00]))
        #expect(throws: SMPPDecodingError.invalidLength(8)) {
            try SMPPPDU.header(hexBytes("00 00 00 08 00 00 00 15 00 00 00 00 00 00 00 01")[...])
        }
        #expect(throws: SMPPDecodingError.invalidLength(0x0100_0000)) {
            try SMPPPDU.header(hexBytes("01 00 00 00 00 00 00 15 00 00 00 00 00 00 00 01")[...])
        }
        let unterminated = hexBytes("00 00 00 14 80 00 00 04 00 00 00 00 00 00 00 03 61 62 63 64")
        #expect(throws: SMPPDecodingError.truncated(field: "message_id")) { try SMPPPDU.decode(unterminated) }
    }

    @Test("C-octet strings are ISO 8859-1 both ways: a deliver_sm with octets above 0x7F encodes back to its bytes")
    func latin1CStrings() throws {
        // Found by the smpp_pdu fuzzer: the reader took octet C4 as "Ä" and the writer wrote it as UTF-8 (C3 84).
        let bytes = hexBytes("""
            00 00 00 2E 00 00 00 05 00 00 00 00 00 00 00 07 00 01 01 33 31 36 31 C4 37 38 00 05 00 41 63 6D E9 00 04 00
            00 00 00 00 00 00 00 02 68 69
            """)
        let pdu = try SMPPPDU.decode(bytes)
        guard case .deliverSM(let message) = pdu.body else {
            Issue.record("decoded as \(pdu.body)")
            return
        }
        #expect(message.source == "3161Ä78" && message.destination == "Acmé")
        #expect(pdu.encoded() == bytes)
        #expect(try SMPPPDU.decode(pdu.encoded()) == pdu)
        var writer = SMPPWireWriter()
        writer.cString("a€")
        #expect(writer.bytes == [0x61, 0x3F, 0x00])
    }

    @Test("sequence numbers run 1 … 0x7FFFFFFF and wrap to 1")
    func sequenceWraps() {
        #expect(SMPPPDU.sequence(after: 0) == 1)
        #expect(SMPPPDU.sequence(after: 41) == 42)
        #expect(SMPPPDU.sequence(after: 0x7FFF_FFFE) == 0x7FFF_FFFF)
        #expect(SMPPPDU.sequence(after: 0x7FFF_FFFF) == 1)
    }

    @Test("statuses print with their SMPP names; only throttled and queue-full are transient")
    func statuses() {
        #expect(SMPPCommandStatus.invalidPassword.description == "ESME_RINVPASWD (0x0000000E)")
        #expect(SMPPCommandStatus.bindFailed.description == "ESME_RBINDFAIL (0x0000000D)")
        #expect(SMPPCommandStatus(rawValue: 0x401).description == "0x00000401")
        #expect(SMPPCommandStatus.throttled.isTransient && SMPPCommandStatus.messageQueueFull.isTransient)
        #expect(!SMPPCommandStatus.invalidDestinationAddress.isTransient && !SMPPCommandStatus.systemError.isTransient)
    }
}
