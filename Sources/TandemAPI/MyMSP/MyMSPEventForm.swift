import TandemCore

/// A myMSP event as its HTTP push (section 5.2): an `application/x-www-form-urlencoded` POST with
/// `messageType=DPN`, `msgNo`, `createTime` (`yyyy-MM-dd HH:mm`, UTC), `creatorName`, `initialId`,
/// `originatorText` (the recipient id), `destination` and `subject`, in that order. Values are UTF-8,
/// percent-encoded except `A–Z a–z 0–9 - . _ ~`, a space as `+`.
public enum MyMSPEventForm {
    public static let contentType = "application/x-www-form-urlencoded; charset=utf-8"

    public static func fields(_ event: MyMSPEvent) -> [(name: String, value: String)] {
        [("messageType", "DPN"), ("msgNo", String(event.msgno)), ("createTime", MyMSPTime.minutes(event.createdAt)),
         ("creatorName", event.userName), ("initialId", event.action.rawValue), ("originatorText", String(event.recipient)),
         ("destination", event.destination), ("subject", event.subject)]
    }

    public static func body(_ event: MyMSPEvent) -> [UInt8] {
        Array(fields(event).map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&").utf8)
    }

    static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
