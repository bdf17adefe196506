import Testing
import TandemCore
@testable import TandemProviders

/// Exact vectors for the octets an SMS becomes: GSM 03.38 packing (3GPP TS 23.038 §6.1.2.1.1), the
/// extension table, UCS-2, and the concatenation splits at 160/153 and 70/67.
@Suite("SMPP text encoding and splitting")
struct SMPPTextTests {
    private func plan(_ body: String, forceUCS2: Bool = false, reference: UInt8 = 0x2A,
                      options: SMPPSubmitPlan.Options = .init()) throws -> [SMPPShortMessage] {
        try SMPPSubmitPlan.parts(sender: "Acme", recipient: .test, body: body, forceUCS2: forceUCS2,
                                 validity: .seconds(3_600), reference: reference, options: options)
    }

    @Test("GSM-7 packing: eight septets fill seven octets, least significant bit first")
    func packing() {
        let hellohello = SMSText.encodeGSM7Unpacked("hellohello")!
        #expect(hellohello == [0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x68, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(GSM7Packing.pack(hellohello) == hexBytes("E8 32 9B FD 46 97 D9 EC 37"))
        #expect(GSM7Packing.pack(SMSText.encodeGSM7Unpacked("hello")!) == hexBytes("E8 32 9B FD 06"))
        #expect(GSM7Packing.pack(SMSText.encodeGSM7Unpacked("12345678")!) == hexBytes("31 D9 8C 56 B3 DD 70"))
        #expect(GSM7Packing.pack([]) == [])
        #expect(GSM7Packing.unpack(hexBytes("E8 32 9B FD 46 97 D9 EC 37"), count: 10) == hellohello)
    }

    @Test("after the 6-octet concatenation header, septets start after one fill bit")
    func packingAfterHeader() {
        #expect(GSM7Packing.fillBits(afterHeaderOctets: 6) == 1)
        #expect(GSM7Packing.fillBits(afterHeaderOctets: 7) == 0)
        let septets = [UInt8](repeating: 0x61, count: 8)
        let packed = GSM7Packing.pack(septets, fillBits: 1)
        // 1 + 8·7 = 57 bits → 8 octets; 0x61 << 1 = 0xC2, then 0x61 with the next septet's low bit on top.
        #expect(packed.count == 8)
        #expect(Array(packed.prefix(2)) == [0xC2, 0xE1])
        #expect(GSM7Packing.unpack(packed, count: 8, fillBits: 1) == septets)
    }

    @Test("packed multipart GSM-7: the header stays whole and the septets follow with one fill bit")
    func packedMultipart() throws {
        var options = SMPPSubmitPlan.Options()
        options.gsm7Packed = true
        let parts = try plan(String(repeating: "a", count: 161), options: options)
        #expect(parts.count == 2)
        #expect(parts[0].shortMessage.count == 6 + 134) // 1 + 153·7 = 1072 bits = 134 octets: 140 in all
        #expect(Array(parts[1].shortMessage.prefix(6)) == hexBytes("05 00 03 2A 02 02"))
        #expect(Array(parts[1].shortMessage.dropFirst(6)) == GSM7Packing.pack(Array(repeating: 0x61, count: 8), fillBits: 1))
        #expect(parts.allSatisfy { $0.dataCoding == 0 && $0.esmClass == 0x40 })

        let single = try plan("hellohello", options: options)
        #expect(single[0].shortMessage == hexBytes("E8 32 9B FD 46 97 D9 EC 37"))
    }

    @Test("the extension table goes as ESC + code: € is 1B 65, { is 1B 28")
    func extensionTable() throws {
        #expect(try plan("€")[0].shortMessage == [0x1B, 0x65])
        #expect(try plan("{")[0].shortMessage == [0x1B, 0x28])
        #expect(try plan("[~]|^\\}")[0].shortMessage == hexBytes("1B 3C 1B 3D 1B 3E 1B 40 1B 14 1B 2F 1B 29"))
        #expect(try plan("@£$")[0].shortMessage == [0x00, 0x01, 0x02])
        #expect(try plan("€")[0].dataCoding == 0)
    }

    @Test("UCS-2 is UTF-16 big-endian with data_coding 8: € is 20 AC, 😀 a surrogate pair")
    func ucs2() throws {
        let euro = try plan("€", forceUCS2: true)[0]
        #expect(euro.shortMessage == [0x20, 0xAC] && euro.dataCoding == 8)
        #expect(try plan("Привет")[0].shortMessage == hexBytes("04 1F 04 40 04 38 04 32 04 35 04 42"))
        #expect(try plan("😀")[0].shortMessage == hexBytes("D8 3D DE 00"))
    }

    @Test("160 GSM characters are one part without a header; 161 are 153 + 8 with 05 00 03 ref 02 n")
    func gsmSplit() throws {
        let one = try plan(String(repeating: "x", count: 160))
        #expect(one.count == 1 && one[0].esmClass == 0 && one[0].shortMessage.count == 160)

        let two = try plan(String(repeating: "x", count: 161), reference: 0x7F)
        #expect(two.count == 2)
        #expect(two.map(\.esmClass) == [0x40, 0x40])
        #expect(Array(two[0].shortMessage.prefix(6)) == hexBytes("05 00 03 7F 02 01"))
        #expect(Array(two[1].shortMessage.prefix(6)) == hexBytes("05 00 03 7F 02 02"))
        #expect(two.map { $0.shortMessage.count - 6 } == [153, 8])

        // 80 × € is 160 septets: one part; 81 × € moves the 77th pair to part two (76·2 = 152 septets).
        #expect(try plan(String(repeating: "€", count: 80)).count == 1)
        let euros = try plan(String(repeating: "€", count: 81))
        #expect(euros.map { $0.shortMessage.count - 6 } == [152, 10])
        #expect(euros[0].shortMessage.last == 0x65) // an escape pair is never cut
    }

    @Test("70 UCS-2 characters are one part (140 octets); 71 are 67 + 4 with the header")
    func ucs2Split() throws {
        let one = try plan(String(repeating: "ж", count: 70))
        #expect(one.count == 1 && one[0].shortMessage.count == 140 && one[0].dataCoding == 8)

        let two = try plan(String(repeating: "ж", count: 71), reference: 3)
        #expect(two.count == 2)
        #expect(Array(two[0].shortMessage.prefix(6)) == hexBytes("05 00 03 03 02 01"))
        #expect(Array(two[1].shortMessage.prefix(6)) == hexBytes("05 00 03 03 02 02"))
        #expect(two.map(\.shortMessage.count) == [6 + 134, 6 + 8])
        #expect(Array(two[1].shortMessage.dropFirst(6)) == hexBytes("04 36 04 36 04 36 04 36"))

        // A surrogate pair at units 67–68 moves whole to part two.
        let emoji = try plan(String(repeating: "ж", count: 66) + "😀" + String(repeating: "ж", count: 10))
        #expect(emoji.map { $0.shortMessage.count - 6 } == [132, 24])
    }

    @Test("forceUCS2 sends GSM text as UCS-2; parts share one reference; more than 255 parts are refused")
    func limits() throws {
        let forced = try plan(String(repeating: "a", count: 71), forceUCS2: true)
        #expect(forced.count == 2 && forced.allSatisfy { $0.dataCoding == 8 })
        #expect(throws: SMPPSubmitPlan.Problem.tooManyParts(256)) {
            try plan(String(repeating: "ж", count: 67 * 256))
        }
    }

    @Test("validity_period is relative YYMMDDhhmmss000R, rounded up, capped at 99 days, empty for none")
    func validity() {
        #expect(SMPPValidityPeriod.relative(.seconds(93_784)) == "000001020304000R")
        #expect(SMPPValidityPeriod.relative(.seconds(172_800)) == "000002000000000R")
        #expect(SMPPValidityPeriod.relative(.milliseconds(500)) == "000000000001000R")
        #expect(SMPPValidityPeriod.relative(.seconds(200 * 86_400)) == "000099235959000R")
        #expect(SMPPValidityPeriod.relative(.zero) == "")
    }

    @Test("an alphanumeric source_addr goes one ISO 8859-1 octet per character and reads back the same")
    func latin1SourceAddress() throws {
        var message = SMPPShortMessage()
        message.sourceTON = 5
        message.source = "B&B-Zürich"
        var writer = SMPPWireWriter()
        message.encode(into: &writer)
        // service_type "" (one NUL), TON, NPI, then the address and its NUL.
        #expect(Array(writer.bytes[3..<14]) == [0x42, 0x26, 0x42, 0x2D, 0x5A, 0xFC, 0x72, 0x69, 0x63, 0x68, 0x00])
        var reader = SMPPWireReader(writer.bytes)
        #expect(try SMPPShortMessage.decode(from: &reader).source == "B&B-Zürich")
    }

    @Test("senders: alphanumeric TON 5 NPI 0, numbers TON 1 NPI 1 without + or 00, overrides win")
    func senders() throws {
        #expect(try SMPPAddress.source("Acme") == SMPPAddress(ton: 5, npi: 0, address: "Acme"))
        #expect(try SMPPAddress.source("ACME 2024ab") == SMPPAddress(ton: 5, npi: 0, address: "ACME 2024ab"))
        #expect(try SMPPAddress.source("+31201234567") == SMPPAddress(ton: 1, npi: 1, address: "31201234567"))
        #expect(try SMPPAddress.source("0031201234567") == SMPPAddress(ton: 1, npi: 1, address: "31201234567"))
        #expect(try SMPPAddress.source("3197010203") == SMPPAddress(ton: 1, npi: 1, address: "3197010203"))
        #expect(try SMPPAddress.source("Acme", ton: 2, npi: 9) == SMPPAddress(ton: 2, npi: 9, address: "Acme"))
        #expect(try SMPPAddress.source("") == SMPPAddress(ton: 0, npi: 0, address: ""))
        #expect(throws: SMPPAddress.SenderProblem.alphanumericTooLong(12)) { try SMPPAddress.source("TwelveLetter") }
        #expect(try SMPPAddress.source("ACME corp.") == SMPPAddress(ton: 5, npi: 0, address: "ACME corp."))
        #expect(try SMPPAddress.source("B&B-Zürich") == SMPPAddress(ton: 5, npi: 0, address: "B&B-Zürich"))
        #expect(try SMPPAddress.source("éééééééééé¿") == SMPPAddress(ton: 5, npi: 0, address: "éééééééééé¿"))
        #expect(throws: SMPPAddress.SenderProblem.alphanumericTooLong(12)) { try SMPPAddress.source("éééééééééééé") }
        #expect(throws: SMPPAddress.SenderProblem.notPrintableLatin1) { try SMPPAddress.source("Ω-Shop") }
        #expect(throws: SMPPAddress.SenderProblem.notPrintableLatin1) { try SMPPAddress.source("5€ off") }
        #expect(SMPPAddress.destination(.test) == SMPPAddress(ton: 1, npi: 1, address: "31612345678"))
    }
}
