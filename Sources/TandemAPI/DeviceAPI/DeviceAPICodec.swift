import TandemCore

/// The device API's request bodies and response documents (spec: "Device Registrations", "Messages").
///
/// Requests: a JSON object whose keys are matched ignoring ASCII case; keys the API does not know are
/// ignored (as the platform the SDKs were written against does), values of known keys are checked.
enum DeviceAPICodec {
    /// A bad request body: the message of the 400.
    struct Problem: Error, Sendable, Hashable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// What a `POST`/`PUT /v1.0/deviceregistrations` body asks to change.
    struct RegistrationChanges: Sendable, Hashable {
        /// `.some(nil)`: `"PushToken": null` or `""` — the install no longer has a token.
        var pushToken: PushToken??
        var msisdn: MSISDN?
        var verificationCode: String?
        var notificationsEnabled: Bool?
        /// `Development` (the SDKs' `setDevelopment`, iOS): true sends the install's pushes to APNs' sandbox,
        /// false back to the app's environment.
        var development: Bool?
    }

    /// A `PUT /v1.0/messages` body.
    struct Receipt: Sendable, Hashable {
        let updateID: DeliveryKey
        /// `"Status": "Delivered"`.
        let delivered: Bool
        /// `ReadByRecipient`, when the app reported the message as displayed.
        let readAt: Timestamp?
    }

    /// The longest push token accepted per platform, in bytes. An install's token is stored, cached and sent
    /// with every push, so its size is capped well above what the services issue but far below the 4 KB
    /// an attacker would send (3,000 installs with 4 KB tokens grew a database by 61 MB):
    /// - iOS 200: APNs device tokens are 32 bytes, 64 hex characters; Apple warns the length may change, so
    ///   three times today's. Not restricted to hex: the simulator's tokens (`noread-…`) are words.
    /// - Android 1,024: FCM registration tokens are about 150–250 characters today, with no documented maximum.
    /// - WindowsPhone 2,048: MPNS/WNS channel URIs are URLs, documented up to 2,048 characters.
    static func maximumPushTokenBytes(_ platform: Platform) -> Int {
        switch platform {
        case .iOS: 200
        case .android: 1_024
        case .windowsPhone: 2_048
        }
    }

    /// A 400 when the body's `PushToken` is longer than the caller's platform allows.
    static func checkPushToken(_ changes: RegistrationChanges, platform: Platform) throws(Problem) {
        guard case .some(.some(let token)) = changes.pushToken else { return }
        let maximum = maximumPushTokenBytes(platform)
        guard token.text.utf8.count <= maximum else {
            throw Problem("PushToken is too long for \(platform.wireName): at most \(maximum) characters")
        }
    }

    static func registrationChanges(_ body: [UInt8]) throws(Problem) -> RegistrationChanges {
        var changes = RegistrationChanges()
        // The spec asks for at least `{}`; an empty body is read as `{}`.
        guard body.contains(where: { !isSpace($0) }) else { return changes }
        for member in try object(body) {
            switch member.key.lowercased() {
            case "pushtoken":
                switch member.value {
                case .null: changes.pushToken = .some(nil)
                case .string(let text) where text.isEmpty: changes.pushToken = .some(nil)
                case .string(let text):
                    guard let token = PushToken(text) else {
                        throw Problem("PushToken must be 1 to 4,096 printable ASCII characters without spaces")
                    }
                    changes.pushToken = .some(token)
                default: throw Problem("PushToken must be a string, not \(member.value.kindDescription)")
                }
            case "msisdn":
                switch member.value {
                case .null: break
                case .string(let text):
                    guard let number = MSISDN(text) else {
                        throw Problem("Msisdn must be an international number with its country code, like 0031600000000")
                    }
                    changes.msisdn = number
                default: throw Problem("Msisdn must be a string, not \(member.value.kindDescription)")
                }
            case "verificationcode":
                switch member.value {
                case .null: break
                case .string(let text), .number(let text):
                    let code = text.trimmingASCIISpaces()
                    guard !code.isEmpty, code.utf8.count <= 32, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                        throw Problem("VerificationCode must be the digits of the PIN")
                    }
                    changes.verificationCode = code
                default: throw Problem("VerificationCode must be a string, not \(member.value.kindDescription)")
                }
            case "notificationsenabled":
                switch member.value {
                case .null: break
                case .bool(let enabled): changes.notificationsEnabled = enabled
                default: throw Problem("NotificationsEnabled must be true or false, not \(member.value.kindDescription)")
                }
            case "development":
                switch member.value {
                case .null: break
                case .bool(let development): changes.development = development
                default: throw Problem("Development must be true or false, not \(member.value.kindDescription)")
                }
            default:
                continue
            }
        }
        return changes
    }

    /// The optional `{"Msisdn": …}` of `POST /v1.0/deviceregistrations/voicecall`.
    static func voiceCallNumber(_ body: [UInt8]) throws(Problem) -> MSISDN? {
        guard body.contains(where: { !isSpace($0) }) else { return nil }
        return try registrationChanges(body).msisdn
    }

    static func receipt(_ body: [UInt8]) throws(Problem) -> Receipt {
        var updateID: DeliveryKey?
        var delivered = false
        var readAt: Timestamp?
        for member in try object(body) {
            switch member.key.lowercased() {
            case "updateid":
                switch member.value {
                case .string(let text), .number(let text):
                    guard let value = Int64(text.trimmingASCIISpaces()), value > 0 else {
                        throw Problem("UpdateID must be the UpdateID of a message, like \"6509643556\"")
                    }
                    updateID = DeliveryKey(value)
                default: throw Problem("UpdateID must be a string, not \(member.value.kindDescription)")
                }
            case "status":
                switch member.value {
                case .null: break
                case .string(let text):
                    guard ASCIICase.equal(text.trimmingASCIISpaces(), "Delivered") else {
                        throw Problem("Status can only be \"Delivered\", got \"\(text)\"")
                    }
                    delivered = true
                default: throw Problem("Status must be a string, not \(member.value.kindDescription)")
                }
            case "readbyrecipient":
                switch member.value {
                case .null: break
                case .string(let text):
                    guard let instant = try? ODataDateTime.parse(text.trimmingASCIISpaces()) else {
                        throw Problem("ReadByRecipient must be an ISO 8601 UTC date and time like 2016-05-22T23:41:28.563, got \"\(text)\"")
                    }
                    readAt = instant
                default: throw Problem("ReadByRecipient must be a string, not \(member.value.kindDescription)")
                }
            default:
                continue
            }
        }
        guard let updateID else { throw Problem("UpdateID is required") }
        guard delivered || readAt != nil else {
            throw Problem("give \"Status\": \"Delivered\" (the push arrived) and/or \"ReadByRecipient\" (it was displayed)")
        }
        return Receipt(updateID: updateID, delivered: delivered, readAt: readAt)
    }

    /// `GET /v1.0/deviceregistrations`: the spec's fields in its order, then Tandem's `NotificationsEnabled` and
    /// `Development` (true when the install's pushes go to APNs' sandbox by its own request);
    /// `Created` in the spec's UTC format without a zone letter.
    static func registration(_ registration: DeviceRegistration, appName: String) -> [UInt8] {
        var out = "{\"DeviceID\":\"\(registration.deviceID.text)\",\"Msisdn\":"
        if let msisdn = registration.msisdn { out += "\"00\(msisdn.digits)\"" } else { out += "null" }
        out += ",\"Platform\":\"\(registration.platform.wireName)\",\"RegistrationStatus\":\"\(registration.status.wireName)\""
        out += ",\"Created\":\"\(ISO8601.format(registration.createdAt, zoneDesignator: false))\""
        out += ",\"RegisteredForPushNotification\":\(registration.registeredForPush)"
        out += ",\"AppKey\":\"\(registration.app.text)\",\"AppName\":"
        JSONText.appendString(appName, to: &out)
        out += ",\"UserAgent\":"
        JSONText.appendString(registration.userAgent, to: &out)
        out += ",\"NotificationsEnabled\":\(registration.notificationsEnabled)"
        out += ",\"Development\":\(registration.apnsSandbox == true)}"
        return Array(out.utf8)
    }

    /// An error document: `{"Message":"…"}`.
    static func error(_ message: String) -> [UInt8] {
        Array(("{\"Message\":" + JSONText.quoted(message) + "}").utf8)
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

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
}
