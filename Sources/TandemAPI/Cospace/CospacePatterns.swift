/// The syntax rules of cospace's `POST /api/push`, exactly as its documentation writes them, as
/// hand-written matchers (no regular-expression engine):
///
/// | field | documented pattern |
/// |---|---|
/// | `registration_id` | `^.{10,250}$` |
/// | `device_token` | `^[0-9a-fA-F]{64}$` |
/// | `application_id` | `^[a-zA-Z0-9]{10}.[a-zA-Z0-9.-]{5,100}$` |
/// | `apns_topic` | `^[a-zA-Z0-9.-]{5,100}$` |
///
/// `.` is the regular expression's: any character but a line feed — including in `application_id`, where
/// the separator is written unescaped (`ABCDE12345Xde.cospace.app` passes; clients rely on what was
/// accepted). Characters are Unicode scalars (a registration id of ten `é` passes, as in the Python the API
/// was written in). `$` is the end of the text: a trailing line feed does not pass.
public enum CospacePatterns {
    /// `^.{10,250}$`.
    public static func isRegistrationID(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        return (10...250).contains(scalars.count) && !scalars.contains("\n")
    }

    /// `^[0-9a-fA-F]{64}$`.
    public static func isDeviceToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
            default: false
            }
        }
    }

    /// `^[a-zA-Z0-9]{10}.[a-zA-Z0-9.-]{5,100}$`.
    public static func isApplicationID(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard (16...111).contains(scalars.count) else { return false }
        return scalars[..<10].allSatisfy(isAlphanumeric) && scalars[10] != "\n" && scalars[11...].allSatisfy(isTopicCharacter)
    }

    /// `^[a-zA-Z0-9.-]{5,100}$`.
    public static func isAPNsTopic(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        return (5...100).contains(scalars.count) && scalars.allSatisfy(isTopicCharacter)
    }

    /// The bundle-id part of an application id: what follows its first 11 characters (the team id and the
    /// separator). Only meaningful for an id that ``isApplicationID(_:)``.
    public static func bundleID(ofApplicationID text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.dropFirst(11)))
    }

    /// The team-id part of an application id: its first 10 characters.
    public static func teamID(ofApplicationID text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(10)))
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        default: false
        }
    }

    private static func isTopicCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isAlphanumeric(scalar) || scalar == "." || scalar == "-"
    }
}
