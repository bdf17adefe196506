import TandemCore

/// One `POST /api/push` request, decoded and checked: what to add or delete for the calling user.
public enum CospacePushChange: Sendable, Hashable {
    case add(CospaceToken)
    case delete(PushToken, Platform)
}

/// Why a `POST /api/push` body was refused (every case is HTTP 400).
public enum CospacePushRefusal: Error, Sendable, Hashable {
    /// A field missing, mistyped, not part of the system/action combination, repeated, or not matching its
    /// pattern (`registration_id`, `device_token`); or a body that is not a JSON object. `field` is nil
    /// only for the body as a whole.
    case field(String?, String)
    /// `application_id` does not match its pattern: `{"status":"invalid-appid"}`.
    case invalidApplicationID
    /// `apns_topic` does not match its pattern: `{"status":"invalid-apns-topic"}`.
    case invalidAPNsTopic
    /// The app has no APNs credentials for that team and bundle id: `{"status":"unknown-appid"}` (decided
    /// by the service, which knows the app).
    case unknownApplicationID

    /// The answer's body: `{"status":…}` for the three documented statuses, else
    /// `{"error":"…","field":"…"}`.
    public var document: JSONValue {
        switch self {
        case .field(let name, let problem):
            var members = [JSONMember(key: "error", value: .string(problem))]
            if let name { members.append(JSONMember(key: "field", value: .string(name))) }
            return .object(members)
        case .invalidApplicationID: return Self.status("invalid-appid")
        case .invalidAPNsTopic: return Self.status("invalid-apns-topic")
        case .unknownApplicationID: return Self.status("unknown-appid")
        }
    }

    private static func status(_ text: String) -> JSONValue {
        .object([JSONMember(key: "status", value: .string(text))])
    }
}

/// Decodes `POST /api/push` bodies, as cospace documents them:
///
///     {"system": "gcm"|"apns", "action": "add"|"delete", "registration_id" | "device_token",
///      "sandbox"?, "application_id"?, "apns_topic"?}
///
/// - gcm, add or delete: `registration_id` (``CospacePatterns/isRegistrationID(_:)``), nothing else;
/// - apns, add: `device_token`, `application_id`, optional `sandbox` (a boolean) and `apns_topic`;
/// - apns, delete: `device_token` only.
///
/// Checked in this order, the first failure answering: the body is one JSON object without repeated keys;
/// `system`, then `action`, are present strings with a documented value; every other key belongs to the
/// combination; the required ones are present; each has its type (`null` is no value of any of them); then
/// the patterns — `registration_id` and `device_token` as field errors, `application_id` as `invalid-appid`,
/// `apns_topic` as `invalid-apns-topic`. Pure; whether the app knows the application id is the service's.
///
/// Device tokens are kept in lower case (hex is case-insensitive: one device, one registration). One
/// deviation from the patterns: a `registration_id` that matches `^.{10,250}$` but holds a space, a control
/// or a non-ASCII character is refused like a mismatch — no push service issues such ids, and Tandem's
/// registry keeps printable ASCII tokens only (``PushToken``).
public enum CospacePushCodec {
    public static func decode(_ body: [UInt8]) -> Result<CospacePushChange, CospacePushRefusal> {
        Result { () throws(CospacePushRefusal) in try decodeOrThrow(body) }
    }

    private static func decodeOrThrow(_ body: [UInt8]) throws(CospacePushRefusal) -> CospacePushChange {
        let members = try object(body)
        let system = try choice(members, "system", ["gcm", "apns"])
        let action = try choice(members, "action", ["add", "delete"])
        let allowed: [String]
        let required: [String]
        switch (system, action) {
        case ("gcm", _): (allowed, required) = (["registration_id"], ["registration_id"])
        case ("apns", "add"):
            (allowed, required) = (["device_token", "application_id", "sandbox", "apns_topic"], ["device_token", "application_id"])
        default: (allowed, required) = (["device_token"], ["device_token"])
        }
        for member in members where member.key != "system" && member.key != "action" && !allowed.contains(member.key) {
            throw .field(member.key, "\(JSONText.quoted(member.key)) is not a field of \(system) \(action)"
                         + " (expected " + allowed.map(JSONText.quoted).joined(separator: ", ") + ")")
        }
        for name in required where members.first(where: { $0.key == name }) == nil {
            throw .field(name, "\(JSONText.quoted(name)) is required for \(system) \(action)")
        }
        if system == "gcm" {
            let id = try string(members, "registration_id")
            guard CospacePatterns.isRegistrationID(id) else {
                throw .field("registration_id", #""registration_id" must match ^.{10,250}$"#)
            }
            guard let token = PushToken(id) else {
                throw .field("registration_id", #""registration_id" must be printable ASCII without spaces"#)
            }
            return action == "add" ? .add(.gcm(registrationID: token)) : .delete(token, .android)
        }
        let deviceText = try string(members, "device_token")
        let sandbox = try members.contains { $0.key == "sandbox" } ? bool(members, "sandbox") : nil
        let applicationID = try action == "add" ? string(members, "application_id") : nil
        let topic = try members.contains { $0.key == "apns_topic" } ? string(members, "apns_topic") : nil
        // Hex is case-insensitive: one device, one registration, whichever case the client wrote.
        guard CospacePatterns.isDeviceToken(deviceText), let token = PushToken(deviceText.lowercased()) else {
            throw .field("device_token", #""device_token" must match ^[0-9a-fA-F]{64}$"#)
        }
        guard let applicationID else { return .delete(token, .iOS) }
        guard CospacePatterns.isApplicationID(applicationID) else { throw .invalidApplicationID }
        if let topic, !CospacePatterns.isAPNsTopic(topic) { throw .invalidAPNsTopic }
        return .add(.apns(deviceToken: token, applicationID: applicationID, sandbox: sandbox, topic: topic))
    }

    private static func object(_ body: [UInt8]) throws(CospacePushRefusal) -> [JSONMember] {
        let value: JSONValue
        switch JSONParser.parse(body) {
        case .success(let parsed): value = parsed
        case .failure(let error): throw .field(nil, "the body is not valid JSON: \(error.problem) (at byte \(error.offset))")
        }
        guard case .object(let members) = value else {
            throw .field(nil, "the body must be a JSON object, not \(value.kindDescription)")
        }
        var seen: Set<String> = []
        for member in members where !seen.insert(member.key).inserted {
            throw .field(member.key, "\(JSONText.quoted(member.key)) is given twice")
        }
        return members
    }

    private static func value(_ members: [JSONMember], _ name: String) -> JSONValue? {
        members.first { $0.key == name }?.value
    }

    private static func choice(_ members: [JSONMember], _ name: String, _ values: [String]) throws(CospacePushRefusal) -> String {
        let expected = values.map(JSONText.quoted).joined(separator: " or ")
        guard let found = value(members, name) else { throw .field(name, "\(JSONText.quoted(name)) is required (\(expected))") }
        guard case .string(let text) = found, values.contains(text) else {
            throw .field(name, "\(JSONText.quoted(name)) must be \(expected)")
        }
        return text
    }

    private static func string(_ members: [JSONMember], _ name: String) throws(CospacePushRefusal) -> String {
        guard case .string(let text)? = value(members, name) else {
            throw .field(name, "\(JSONText.quoted(name)) must be a string, not \(value(members, name)?.kindDescription ?? "absent")")
        }
        return text
    }

    private static func bool(_ members: [JSONMember], _ name: String) throws(CospacePushRefusal) -> Bool {
        guard case .bool(let flag)? = value(members, name) else {
            throw .field(name, "\(JSONText.quoted(name)) must be true or false, not \(value(members, name)?.kindDescription ?? "absent")")
        }
        return flag
    }
}
