import Testing
import TandemCore

@Suite("SMS text segmentation")
struct SMSTextTests {
    @Test("GSM-7 part counts at the single and multipart boundaries", arguments: [
        (0, 1), (1, 1), (160, 1), (161, 2), (306, 2), (307, 3), (459, 3), (460, 4),
    ])
    func gsm7Boundaries(length: Int, parts: Int) {
        let segmentation = SMSText.segmentation(of: String(repeating: "a", count: length))
        #expect(segmentation == SMSSegmentation(alphabet: .gsm7, units: length, parts: parts))
    }

    @Test("an empty text is one empty GSM-7 part")
    func emptyText() {
        #expect(SMSText.segmentation(of: "") == SMSSegmentation(alphabet: .gsm7, units: 0, parts: 1))
        #expect(SMSText.split("", alphabet: .gsm7) == [[]])
        #expect(SMSText.split("", alphabet: .ucs2) == [[]])
    }

    @Test("each extension character counts two septets", arguments: ["€", "{", "}", "[", "]", "~", "^", "|", "\\", "\u{0C}"])
    func extensionCharacters(character: String) {
        #expect(SMSText.segmentation(of: character).units == 2)
        #expect(SMSText.segmentation(of: "a" + character + "b") == SMSSegmentation(alphabet: .gsm7, units: 4, parts: 1))
    }

    @Test("80 euro signs are 160 septets in one part; 81 need two")
    func euroSigns() {
        #expect(SMSText.segmentation(of: String(repeating: "€", count: 80)) ==
                SMSSegmentation(alphabet: .gsm7, units: 160, parts: 1))
        #expect(SMSText.segmentation(of: String(repeating: "€", count: 81)) ==
                SMSSegmentation(alphabet: .gsm7, units: 162, parts: 2))
    }

    @Test("an escape pair that would straddle septet 153 moves whole to the next part")
    func escapePairAtBoundary() throws {
        // 152 letters then `€`: ESC would be septet 153 and `€` septet 154.
        let text = String(repeating: "a", count: 152) + "€" + String(repeating: "b", count: 10)
        let segmentation = SMSText.segmentation(of: text)
        #expect(segmentation == SMSSegmentation(alphabet: .gsm7, units: 164, parts: 2))
        let parts = try #require(SMSText.split(text, alphabet: .gsm7))
        #expect(parts.map(\.count) == [152, 12])
        #expect(parts[1].prefix(2) == [0x1B, 0x65])
        // Packing can need one more part than division: 306 septets fit 2 × 153 only when no pair straddles.
        let straddling = String(repeating: "a", count: 152) + String(repeating: "€", count: 77)
        #expect(SMSText.segmentation(of: straddling).units == 306)
        #expect(SMSText.segmentation(of: straddling).parts == 3)
        #expect(SMSText.split(straddling, alphabet: .gsm7)?.map(\.count) == [152, 152, 2])
    }

    @Test("UCS-2 part counts at the boundaries", arguments: [(70, 1), (71, 2), (134, 2), (135, 3), (201, 3), (202, 4)])
    func ucs2Boundaries(length: Int, parts: Int) {
        let segmentation = SMSText.segmentation(of: String(repeating: "ж", count: length))
        #expect(segmentation == SMSSegmentation(alphabet: .ucs2, units: length, parts: parts))
    }

    @Test("one non-GSM character makes the whole text UCS-2")
    func oneCharacterSwitches() {
        let text = String(repeating: "a", count: 69) + "ł"
        #expect(SMSText.segmentation(of: text) == SMSSegmentation(alphabet: .ucs2, units: 70, parts: 1))
        #expect(SMSText.segmentation(of: text + "a") == SMSSegmentation(alphabet: .ucs2, units: 71, parts: 2))
        #expect(SMSText.segmentation(of: "`").alphabet == .ucs2)  // backtick is not in GSM 03.38
        #expect(SMSText.segmentation(of: "tab\there").alphabet == .ucs2)
        #expect(SMSText.segmentation(of: "e\u{301}").alphabet == .ucs2)  // decomposed é is not normalised
    }

    @Test("emoji count two UTF-16 units and are never split")
    func emoji() throws {
        #expect(SMSText.segmentation(of: "😀") == SMSSegmentation(alphabet: .ucs2, units: 2, parts: 1))
        #expect(SMSText.segmentation(of: String(repeating: "😀", count: 35)).parts == 1)
        #expect(SMSText.segmentation(of: String(repeating: "😀", count: 36)).parts == 2)
        // 66 units then an emoji: the pair would straddle unit 67, so it moves to part two.
        let text = String(repeating: "ж", count: 66) + "😀" + String(repeating: "ж", count: 10)
        #expect(SMSText.segmentation(of: text) == SMSSegmentation(alphabet: .ucs2, units: 78, parts: 2))
        let parts = try #require(SMSText.split(text, alphabet: .ucs2))
        #expect(parts.map(\.count) == [132, 24])
        #expect(parts[1].prefix(4) == [0xD8, 0x3D, 0xDE, 0x00])
    }

    @Test("forceUCS2 (dcs 8) sends pure ASCII as UCS-2")
    func forceUCS2() throws {
        #expect(SMSText.segmentation(of: "Hello", forceUCS2: true) == SMSSegmentation(alphabet: .ucs2, units: 5, parts: 1))
        #expect(SMSText.segmentation(of: String(repeating: "a", count: 71), forceUCS2: true).parts == 2)
        #expect(SMSText.segmentation(of: "€", forceUCS2: true).units == 1)
        #expect(SMSText.split("Hi", alphabet: .ucs2) == [[0x00, 0x48, 0x00, 0x69]])
    }

    @Test("GSM-7 unpacked encoding uses the 03.38 code points and ESC for the extension table")
    func gsm7Encoding() {
        #expect(SMSText.encodeGSM7Unpacked("@£$¥") == [0x00, 0x01, 0x02, 0x03])
        #expect(SMSText.encodeGSM7Unpacked("Aa0 ") == [0x41, 0x61, 0x30, 0x20])
        #expect(SMSText.encodeGSM7Unpacked("_ΔÄäàü§¿¡¤") == [0x11, 0x10, 0x5B, 0x7B, 0x7F, 0x7E, 0x5F, 0x60, 0x40, 0x24])
        #expect(SMSText.encodeGSM7Unpacked("€[]{}~^|\\") ==
                [0x1B, 0x65, 0x1B, 0x3C, 0x1B, 0x3E, 0x1B, 0x28, 0x1B, 0x29, 0x1B, 0x3D, 0x1B, 0x14, 0x1B, 0x40, 0x1B, 0x2F])
        #expect(SMSText.encodeGSM7Unpacked("a\r\nb") == [0x61, 0x0D, 0x0A, 0x62])
        #expect(SMSText.encodeGSM7Unpacked("\u{1B}") == nil)
        #expect(SMSText.encodeGSM7Unpacked("ç") == nil)
        #expect(SMSText.encodeGSM7Unpacked("😀") == nil)
    }

    @Test("the 127 characters of the GSM 03.38 basic table encode to their code points")
    func basicTable() {
        let table = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
        let expected = (0...127).filter { $0 != 0x1B }.map(UInt8.init)
        #expect(SMSText.encodeGSM7Unpacked(table) == expected)
        #expect(SMSText.segmentation(of: table) == SMSSegmentation(alphabet: .gsm7, units: 127, parts: 1))
    }

    @Test("split agrees with segmentation and reassembles to the text")
    func splitAgrees() throws {
        let texts = ["", "short", String(repeating: "x{", count: 200), String(repeating: "ж😀", count: 90),
                     String(repeating: "€", count: 81), String(repeating: "a", count: 1_224)]
        for text in texts {
            let segmentation = SMSText.segmentation(of: text)
            let parts = try #require(SMSText.split(text, alphabet: segmentation.alphabet))
            #expect(parts.count == segmentation.parts)
            switch segmentation.alphabet {
            case .gsm7:
                #expect(parts.allSatisfy { $0.count <= (parts.count == 1 ? 160 : 153) })
                #expect(Array(parts.joined()) == SMSText.encodeGSM7Unpacked(text))
            case .ucs2:
                #expect(parts.allSatisfy { $0.count <= (parts.count == 1 ? 140 : 134) })
                let units = stride(from: 0, to: parts.joined().count, by: 2).map { index in
                    let bytes = Array(parts.joined())
                    return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                }
                #expect(String(decoding: units, as: UTF16.self) == text)
            }
        }
        #expect(SMSText.split("ж", alphabet: .gsm7) == nil)
    }

    @Test("the alphabet's capacities and data coding")
    func alphabetFacts() {
        #expect(SMSAlphabet.gsm7.singlePartCapacity == 160)
        #expect(SMSAlphabet.gsm7.multipartCapacity == 153)
        #expect(SMSAlphabet.ucs2.singlePartCapacity == 70)
        #expect(SMSAlphabet.ucs2.multipartCapacity == 67)
        #expect(SMSAlphabet.gsm7.dataCoding == 0)
        #expect(SMSAlphabet.ucs2.dataCoding == 8)
    }
}
