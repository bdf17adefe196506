import Foundation
import TandemCore
@testable import TandemProviders

/// Octets from hex text with any spacing ("00 00 00 48 …").
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "an even number of hex digits")
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
}

extension MSISDN {
    static let test = MSISDN("+31612345678")!
}

/// An SMS request with throwaway key and message id.
func smsRequest(to msisdn: MSISDN = .test, from sender: String = "Acme", body: String, forceUCS2: Bool = false,
                validity: Duration = .seconds(86_400)) -> SMSRequest {
    let content = MessageContent(messageID: GUID("00000000-0000-4000-8000-000000000001")!, sender: sender, body: body, reference: nil, forceUCS2: forceUCS2)
    return SMSRequest(key: DeliveryKey(rawValue: 1), msisdn: msisdn, content: content, validity: validity)
}
