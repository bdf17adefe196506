import TandemCore

/// The TIBCO BWMI API's request bodies and answers (spec: BWMI "Communicating with MI Service"), plus
/// Tandem's enterprise `POST /bwmi/{appKey}/notifications`. Pure.
///
/// Requests are JSON objects with the keys exactly as BWMI spells them. The app endpoints ignore keys they
/// do not know (BWMI apps may send more); the enterprise endpoint refuses them. Errors are
/// `{"error":"…"}` naming the problem.
enum BWMICodec {
    /// A bad request body: the message of the 400.
    struct Problem: Error, Sendable, Hashable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// `PUT` and `DELETE /devices`.
    struct DeviceBody: Sendable, Hashable {
        let token: PushToken
        let platform: Platform
        let phone: MSISDN?
        let email: String?
    }

    /// `PUT /acks`.
    struct Ack: Sendable, Hashable {
        /// The notification id as sent (Tandem's are decimal update ids; anything else names nothing).
        let nid: String
        let device: PushToken
        let bid: String?
    }

    /// Whom an enterprise notification is for.
    enum Target: Sendable, Hashable {
        case device(PushToken)
        case phone(MSISDN)
        case email(String)
    }

    /// `POST /bwmi/{appKey}/notifications`.
    struct Notification: Sendable, Hashable {
        let targets: [Target]
        let text: String
        let bid: String?
        /// Fire-and-forget: not tracked, never pending.
        let fireAndForget: Bool
        /// Fire-and-forget only; a managed notification's badge is stamped per device.
        let badge: Int?
        let sound: String?
        /// `options.messageType`: the policy (lifetime, fallback); nil: the app's default.
        let messageType: AppMessageType?
    }

    /// The most targets one enterprise request may name.
    static let maximumTargets = 1_000
    /// The longest text, in bytes (a push payload holds 4 KB).
    static let maximumTextBytes = 2_048
    /// The longest `bid`, `sound` and email, in bytes.
    static let maximumFieldBytes = 254

    static func device(_ body: [UInt8]) throws(Problem) -> DeviceBody {
        let members = try object(body)
        guard let tokenValue = value("deviceId", in: members) else { throw Problem("deviceId is required") }
        guard case .string(let tokenText) = tokenValue else { throw Problem("deviceId must be a string") }
        guard let typeValue = value("type", in: members) else { throw Problem("type is required (IOS or ANDROID)") }
        guard case .string(let typeText) = typeValue else { throw Problem("type must be a string: IOS or ANDROID") }
        let platform: Platform
        switch typeText.uppercased() {
        case "IOS": platform = .iOS
        case "ANDROID": platform = .android
        default: throw Problem("type must be IOS or ANDROID, not \(JSONText.quoted(String(typeText.prefix(40))))")
        }
        let token = try pushToken(tokenText, platform: platform)
        var phone: MSISDN?
        var email: String?
        switch value("user", in: members) {
        case nil, .null?: break
        case .object(let user)?:
            switch value("phone", in: user) {
            case nil, .null?: break
            case .string(let text)? where text.isEmpty: break
            case .string(let text)?:
                guard let number = MSISDN(text) else {
                    throw Problem("user.phone must be an international number with its country code, like +19883999901")
                }
                phone = number
            case let other?: throw Problem("user.phone must be a string, not \(other.kindDescription)")
            }
            switch value("email", in: user) {
            case nil, .null?: break
            case .string(let text)? where text.isEmpty: break
            case .string(let text)?:
                email = try emailAddress(text, field: "user.email")
            case let other?: throw Problem("user.email must be a string, not \(other.kindDescription)")
            }
        case let other?: throw Problem("user must be an object, not \(other.kindDescription)")
        }
        return DeviceBody(token: token, platform: platform, phone: phone, email: email)
    }

    static func ack(_ body: [UInt8]) throws(Problem) -> Ack {
        let members = try object(body)
        let nid = try requiredString("nid", in: members)
        let did = try requiredString("did", in: members)
        guard let token = PushToken(did), did.utf8.count <= DeviceAPICodec.maximumPushTokenBytes(.android) else {
            throw Problem("did must be the device token (printable ASCII without spaces, at most 1,024 characters)")
        }
        var bid: String?
        switch value("bid", in: members) {
        case nil, .null?: break
        case .string(let text)?: bid = text
        case let other?: throw Problem("bid must be a string, not \(other.kindDescription)")
        }
        return Ack(nid: nid, device: token, bid: bid)
    }

    static func notification(_ body: [UInt8]) throws(Problem) -> Notification {
        let members = try object(body)
        let known: Set<String> = ["to", "text", "bid", "faf", "badge", "sound", "options"]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw Problem("unknown field \(JSONText.quoted(String(unknown.key.prefix(40)))): expected to, text, bid, faf, badge, sound, options")
        }
        guard let to = value("to", in: members) else { throw Problem("to is required: a list of {\"deviceId\"}, {\"phone\"} or {\"email\"}") }
        guard case .array(let entries) = to, !entries.isEmpty else { throw Problem("to must be a non-empty list") }
        guard entries.count <= maximumTargets else { throw Problem("to names more than \(maximumTargets) targets") }
        let targets = try entries.enumerated().map { (index, entry) throws(Problem) -> Target in try target(entry, index: index) }
        let text = try requiredString("text", in: members)
        guard !text.isEmpty, text.utf8.count <= maximumTextBytes else {
            throw Problem("text must be 1 to \(maximumTextBytes) bytes")
        }
        guard let fafValue = value("faf", in: members) else { throw Problem("faf is required: true (fire and forget) or false (managed)") }
        guard case .bool(let faf) = fafValue else { throw Problem("faf must be true or false") }
        let bid = try optionalString("bid", in: members)
        let sound = try optionalString("sound", in: members)
        var badge: Int?
        switch value("badge", in: members) {
        case nil, .null?: break
        case .number(let text)?:
            guard let number = Int(text), (0...99_999).contains(number) else { throw Problem("badge must be a whole number from 0 to 99999") }
            badge = number
        case let other?: throw Problem("badge must be a number, not \(other.kindDescription)")
        }
        if badge != nil && !faf { throw Problem("badge is stamped per device for a managed notification: give it only with faf true") }
        var messageType: AppMessageType?
        switch value("options", in: members) {
        case nil, .null?: break
        case .object(let options)?:
            for option in options {
                guard option.key == "messageType" else {
                    throw Problem("unknown option \(JSONText.quoted(String(option.key.prefix(40)))): expected messageType")
                }
                guard case .string(let name) = option.value, let type = AppMessageType(wireName: name) else {
                    throw Problem("options.messageType must be Default, OTP or Critical")
                }
                messageType = type
            }
        case let other?: throw Problem("options must be an object, not \(other.kindDescription)")
        }
        return Notification(targets: targets, text: text, bid: bid, fireAndForget: faf, badge: badge, sound: sound,
                            messageType: messageType)
    }

    /// `GET /devices/{token}/notifications`: `{"ns":[[nid, utcMillis, text, bid?], …]}`.
    static func pending(_ notifications: [BWMINotification]) -> [UInt8] {
        var out = "{\"ns\":["
        for (index, notification) in notifications.enumerated() {
            if index > 0 { out += "," }
            out += "[\"\(notification.delivery.rawValue)\",\"\(notification.sentAt.milliseconds)\","
            JSONText.appendString(notification.text, to: &out)
            if let bid = notification.bid {
                out += ","
                JSONText.appendString(bid, to: &out)
            }
            out += "]"
        }
        out += "]}"
        return Array(out.utf8)
    }

    /// One device an enterprise notification reached.
    struct Sent: Sendable, Hashable {
        let token: PushToken
        let nid: DeliveryKey
        let badge: Int?
    }

    /// One target an enterprise notification did not reach, and why.
    struct Unreached: Sendable, Hashable {
        let target: Target
        let reason: String
    }

    /// The answer to `POST /bwmi/{appKey}/notifications`:
    /// `{"notifications":[{"deviceId","nid","badge"?}…],"unreached":[{"to":{…},"error"}…]}`.
    static func sent(_ sent: [Sent], unreached: [Unreached]) -> [UInt8] {
        var out = "{\"notifications\":["
        for (index, item) in sent.enumerated() {
            if index > 0 { out += "," }
            out += "{\"deviceId\":"
            JSONText.appendString(item.token.text, to: &out)
            out += ",\"nid\":\"\(item.nid.rawValue)\""
            if let badge = item.badge { out += ",\"badge\":\(badge)" }
            out += "}"
        }
        out += "],\"unreached\":["
        for (index, item) in unreached.enumerated() {
            if index > 0 { out += "," }
            out += "{\"to\":"
            switch item.target {
            case .device(let token):
                out += "{\"deviceId\":"
                JSONText.appendString(token.text, to: &out)
            case .phone(let phone): out += "{\"phone\":\"\(phone.e164)\""
            case .email(let email):
                out += "{\"email\":"
                JSONText.appendString(email, to: &out)
            }
            out += "},\"error\":"
            JSONText.appendString(item.reason, to: &out)
            out += "}"
        }
        out += "]}"
        return Array(out.utf8)
    }

    /// An error document: `{"error":"…"}`.
    static func error(_ message: String) -> [UInt8] {
        Array(("{\"error\":" + JSONText.quoted(message) + "}").utf8)
    }

    // MARK: Pieces

    private static func target(_ entry: JSONValue, index: Int) throws(Problem) -> Target {
        guard case .object(let members) = entry, members.count == 1, let member = members.first,
              case .string(let text) = member.value else {
            throw Problem("to[\(index)] must be one of {\"deviceId\":…}, {\"phone\":…}, {\"email\":…}")
        }
        switch member.key {
        case "deviceId":
            guard let token = PushToken(text), text.utf8.count <= DeviceAPICodec.maximumPushTokenBytes(.android) else {
                throw Problem("to[\(index)].deviceId must be a device token (printable ASCII without spaces, at most 1,024 characters)")
            }
            return .device(token)
        case "phone":
            guard let phone = MSISDN(text) else { throw Problem("to[\(index)].phone must be an international number, like +19883999901") }
            return .phone(phone)
        case "email":
            return .email(try emailAddress(text, field: "to[\(index)].email"))
        default:
            throw Problem("to[\(index)] must be one of {\"deviceId\":…}, {\"phone\":…}, {\"email\":…}")
        }
    }

    /// iOS tokens are not held to 64 hex characters (BWMI's own example has 65; Apple says the length may
    /// change): the device API's maxima apply (``DeviceAPICodec/maximumPushTokenBytes(_:)``).
    private static func pushToken(_ text: String, platform: Platform) throws(Problem) -> PushToken {
        let maximum = DeviceAPICodec.maximumPushTokenBytes(platform)
        guard let token = PushToken(text), text.utf8.count <= maximum else {
            throw Problem("deviceId must be 1 to \(maximum) printable ASCII characters without spaces for \(platform == .iOS ? "IOS" : "ANDROID")")
        }
        return token
    }

    private static func emailAddress(_ text: String, field: String) throws(Problem) -> String {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.utf8.count <= maximumFieldBytes, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              !text.contains(where: { $0.isWhitespace }) else {
            throw Problem("\(field) must be an email address (name@domain, at most \(maximumFieldBytes) characters)")
        }
        return text
    }

    private static func value(_ key: String, in members: [JSONMember]) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    private static func requiredString(_ key: String, in members: [JSONMember]) throws(Problem) -> String {
        guard let value = value(key, in: members) else { throw Problem("\(key) is required") }
        guard case .string(let text) = value, !text.isEmpty else { throw Problem("\(key) must be a non-empty string") }
        return text
    }

    private static func optionalString(_ key: String, in members: [JSONMember]) throws(Problem) -> String? {
        switch value(key, in: members) {
        case nil, .null?: return nil
        case .string(let text)?:
            guard text.utf8.count <= maximumFieldBytes else { throw Problem("\(key) must be at most \(maximumFieldBytes) bytes") }
            return text
        case let other?: throw Problem("\(key) must be a string, not \(other.kindDescription)")
        }
    }

    private static func object(_ body: [UInt8]) throws(Problem) -> [JSONMember] {
        switch JSONParser.parse(body) {
        case .failure(let error):
            throw Problem("the body is not valid JSON: \(error.problem) at byte \(error.offset)")
        case .success(.object(let members)):
            return members
        case .success(let other):
            throw Problem("the body must be a JSON object, not \(other.kindDescription)")
        }
    }
}
