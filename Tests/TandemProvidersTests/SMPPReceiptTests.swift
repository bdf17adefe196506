import Testing
import TandemCore
@testable import TandemProviders

/// Delivery receipts as SMSCs write them (SMPP 3.4 Appendix B and the common deviations), and the
/// mapping of message states to outcomes.
@Suite("SMPP delivery receipts")
struct SMPPReceiptTests {
    private func receipt(_ text: String, esmClass: UInt8 = 0x04, tlvs: [SMPPTLV] = [],
                         dataCoding: UInt8 = 0) -> Result<SMPPDeliveryReceipt, SMPPDeliveryReceipt.Problem>? {
        var message = SMPPShortMessage()
        message.esmClass = esmClass
        message.dataCoding = dataCoding
        message.shortMessage = Array(text.utf8)
        message.tlvs = tlvs
        return SMPPDeliveryReceipt.read(message)
    }

    @Test("real-world receipt texts", arguments: [
        // Appendix B, as Kannel's and most SMSCs write it.
        ("id:1234567890 sub:001 dlvrd:001 submit date:2401011200 done date:2401011201 stat:DELIVRD err:000 text:Hello",
         "1234567890", "DELIVRD", "000"),
        // Upper-case keys, hex id.
        ("ID:7F3A00BC SUB:001 DLVRD:000 SUBMIT DATE:2401011200 DONE DATE:2401020000 STAT:EXPIRED ERR:000 TEXT:",
         "7F3A00BC", "EXPIRED", "000"),
        // Missing text:, short err.
        ("id:abc-123 sub:001 dlvrd:000 submit date:2401011200 done date:2401011205 stat:UNDELIV err:1",
         "abc-123", "UNDELIV", "1"),
        // Mixed case, no sub/dlvrd, text that itself says stat:DELIVRD.
        ("Id:42 Submit date:2401011200 Done date:2401011205 Stat:REJECTD Err:0B Text:stat:DELIVRD id:99",
         "42", "REJECTD", "0B"),
        // Full names instead of the seven-letter forms, extra spaces.
        ("id:0012  sub:001 dlvrd:001 stat:DELIVERED  err:000", "0012", "DELIVERED", "000"),
    ])
    func texts(text: String, id: String, stat: String, err: String) throws {
        let parsed = try #require(SMPPReceiptText.parse(text))
        #expect(parsed.id == id)
        #expect(parsed.stat == stat)
        #expect(parsed.err == err)
        let receipt = try #require(try receipt(text)?.get())
        #expect(receipt.messageID == id)
        #expect(receipt.detail == "stat:\(stat) err:\(err)")
    }

    @Test("stat words map to outcomes; ENROUTE and ACCEPTD are intermediate", arguments: [
        ("DELIVRD", SMPPMessageState.Verdict.final(.delivered)), ("delivered", .final(.delivered)),
        ("EXPIRED", .final(.expired)),
        ("UNDELIV", .final(.failed)), ("UNDELIVERABLE", .final(.failed)), ("REJECTD", .final(.failed)),
        ("REJECTED", .final(.failed)), ("DELETED", .final(.failed)), ("UNKNOWN", .final(.failed)),
        ("ENROUTE", .intermediate), ("ACCEPTD", .intermediate), ("accepted", .intermediate),
    ])
    func words(word: String, verdict: SMPPMessageState.Verdict) throws {
        #expect(SMPPMessageState(receiptWord: word)?.verdict == verdict)
        let read = try #require(try receipt("id:1 stat:\(word) err:000")?.get())
        #expect(read.state.verdict == verdict)
    }

    @Test("message_state numbers 1…8 map like their words; others are not SMPP 3.4 states")
    func numbers() {
        let verdicts = (0...9).map { SMPPMessageState(rawValue: UInt8($0)).verdict }
        #expect(verdicts == [nil, .intermediate, .final(.delivered), .final(.expired), .final(.failed), .final(.failed),
                             .intermediate, .final(.failed), .final(.failed), nil])
    }

    @Test("TLVs alone are enough: receipted_message_id and message_state, no text")
    func tlvOnly() throws {
        let read = try #require(try receipt("", tlvs: [SMPPTLV(.receiptedMessageID, Array("msg-9\0".utf8)),
                                                       SMPPTLV(.messageState, [3])])?.get())
        #expect(read.messageID == "msg-9")
        #expect(read.state == .expired)
        #expect(read.detail == "stat:EXPIRED")
    }

    @Test("field by field: a TLV id with a text state, and a text id with a TLV state")
    func mixed() throws {
        let idFromTLV = try #require(try receipt("id:zzz stat:DELIVRD err:000",
                                                 tlvs: [SMPPTLV(.receiptedMessageID, Array("AAA".utf8))])?.get())
        #expect(idFromTLV.messageID == "AAA" && idFromTLV.state == .delivered)
        let stateFromTLV = try #require(try receipt("id:zzz stat:DELIVRD", tlvs: [SMPPTLV(.messageState, [8])])?.get())
        #expect(stateFromTLV.messageID == "zzz" && stateFromTLV.state == .rejected)
    }

    @Test("a UCS-2 receipt text is read as UTF-16")
    func ucs2Text() throws {
        let text = "id:77 stat:DELIVRD err:000"
        var message = SMPPShortMessage()
        message.esmClass = 0x04
        message.dataCoding = 8
        message.shortMessage = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let read = try #require(try SMPPDeliveryReceipt.read(message)?.get())
        #expect(read.messageID == "77" && read.state == .delivered)
    }

    @Test("not a receipt: mobile-originated and intermediate notifications give nil; unreadable ones a problem")
    func notReceipts() {
        #expect(receipt("id:1 stat:DELIVRD", esmClass: 0x00) == nil)
        #expect(receipt("id:1 stat:DELIVRD", esmClass: 0x20) == nil) // intermediate notification
        #expect(receipt("id:1 stat:DELIVRD", esmClass: 0x08) == nil) // SME delivery acknowledgement
        #expect(receipt("id:1 stat:DELIVRD", esmClass: 0x44) != nil) // receipt with UDHI set
        #expect(receipt("hello there") == .failure(.missingID))
        #expect(receipt("id:5 err:000") == .failure(.missingState))
        #expect(receipt("id:5 stat:WEIRD") == .failure(.unknownState("WEIRD")))
        #expect(receipt("", tlvs: [SMPPTLV(.receiptedMessageID, [0x31]), SMPPTLV(.messageState, [0])])
            == .failure(.unknownState("0")))
    }
}
