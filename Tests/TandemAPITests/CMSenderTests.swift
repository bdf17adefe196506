import Foundation
import Testing
import TandemAPI

@Suite("CM senders: GSM 03.38 basic alphabet, 11 characters; numbers of 16 digits")
struct CMSenderTests {
    @Test("accepted senders, with their kind", arguments: [
        ("ACME corp.", CMSender.Kind.alphanumeric), ("B&B-Zürich", .alphanumeric), ("CM Telecom", .alphanumeric),
        ("A", .alphanumeric), ("ABCDEFGHIJK", .alphanumeric), ("  Shop  ", .alphanumeric),
        ("@£$¥èéùìòÇØ", .alphanumeric), ("øÅå_ÆæßÉ!\"#", .alphanumeric), ("¤%&'()*+,-.", .alphanumeric), ("/", .alphanumeric),
        (":;<=>?¡ÄÖÑÜ", .alphanumeric), ("§¿äöñüà", .alphanumeric),
        ("ééééééééé é", .alphanumeric),  // 11 characters, 21 bytes: characters count
        ("12-34", .alphanumeric), ("+", .alphanumeric), ("0031 6123", .alphanumeric),
        ("3669", .numeric), ("1", .numeric), ("+31612345678", .numeric), ("0031612345678", .numeric),
        ("1234567890123456", .numeric), ("+1234567890123456", .numeric), ("12345678901", .numeric),
    ] as [(String, CMSender.Kind)])
    func accepted(text: String, kind: CMSender.Kind) throws {
        let sender = try #require(CMSender(text), "\(text)")
        #expect(sender.kind == kind)
        #expect(sender.text == text.trimmingCharacters(in: .whitespaces))
    }

    @Test("refused senders", arguments: [
        "", "   ",
        "ABCDEFGHIJKL",  // 12 characters
        "éééééééééééé",  // 12 characters of two bytes
        "12345678901234567", "+12345678901234567", "1234567890123-",  // 17 digits; 14 characters, not all digits
        "cm{com}", "a[b]", "a~b", "a\\b", "a^b", "a|b", "5€ off",  // the extension table
        "ΔΦΓΛΩΠΨΣΘΞ",  // GSM basic, but outside ISO 8859-1
        "Caf\u{0065}\u{0301}",  // a decomposed accent
        "a\tb", "a\nb", "a\u{1B}b", "a\u{00}b",  // controls, ESC included
        "Zoë", "Łódź", "日本", "🙂", "`back`",  // outside the GSM basic set
    ])
    func refused(text: String) {
        #expect(CMSender(text) == nil, "\(text)")
    }

    @Test("every character of the alphabet is accepted alone and eleven times; its size is the basic set minus 13")
    func wholeAlphabet() {
        #expect(CMSender.alphabet.count == 128 - 3 - 10)  // LF, CR, ESC and the ten Greek capitals left out
        for scalar in CMSender.alphabet where scalar != " " {
            let character = String(Character(scalar))
            #expect(CMSender(character) != nil, "\(character)")
            #expect(CMSender(String(repeating: character, count: 11)) != nil, "\(character) × 11")
            if !("0"..."9").contains(scalar) {  // twelve digits are a numeric sender
                #expect(CMSender(String(repeating: character, count: 12)) == nil, "\(character) × 12")
            }
        }
    }

    @Test("a refused from is 301 and says what is accepted")
    func refusalText() {
        let error = (try? decodeJSON(jsonRequest(#""from":"cm{com}","to":["0031612345678"],"body":"x""#)))?.onlyError
        #expect(error?.code == .invalidFrom)
        #expect(error?.details == "from \"cm{com}\" must be 1–11 characters from the GSM 03.38 basic alphabet (letters, "
            + "digits, spaces and @£$¥èéùìòÇØøÅå_ÆæßÉ!\"#¤%&'()*+,-./:;<=>?¡ÄÖÑÜ§¿äöñüà), or a number of at most 16 digits "
            + "with an optional leading +")
    }
}
