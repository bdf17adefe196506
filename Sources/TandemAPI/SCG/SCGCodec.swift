import TandemCore

/// Decodes SCG messaging requests. Pure: no I/O, no clock.
///
/// Keys are matched exactly (SCG's JSON is snake_case); unknown keys, and `null` values, are ignored
/// (Syniverse's SDKs send fields Tandem has no use for, such as `conversation_id` or `attachments`). A key
/// given twice, a value of the wrong type or a refused value is a 400 naming the field; the first fault in
/// the order `from`, `to`, `body`, `options`, then the optional fields, is reported. With a phone number
/// in `to`, `from` must also be a valid SMS sender (CM's rule: up to 11 GSM characters, or up to 16 digits).
public enum SCGCodec {
    public static let maximumRecipients = 1_000
    static let maximumTextField = 100

    /// `POST /messaging/message_requests`.
    public static func decodeMessageRequest(_ bytes: [UInt8]) throws(SCGError) -> SCGMessageRequest {
        let members = try object(bytes)
        var fields: [String: JSONValue] = [:]
        for member in members where member.value != .null {
            guard fields.updateValue(member.value, forKey: member.key) == nil else {
                throw .field(member.key, "\(member.key) appears more than once")
            }
        }
        let from = try requiredString(fields, "from")
        var sender = from
        if from.hasPrefix("sender_id:") { sender = String(from.dropFirst("sender_id:".count)) }
        guard !sender.isEmpty, sender.utf8.count <= 64, !sender.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .field("from", "from must be 1-64 characters without control characters (optionally sender_id:<id>)")
        }
        let (to, recipients) = try addresses(fields["to"])
        // A phone number may go by SMS, whose sender field has CM's rules (a psh:-only request's `from` is free).
        if recipients.contains(where: { if case .msisdn = $0 { true } else { false } }), CMSender(sender) == nil {
            throw .field("from", "from \(JSONText.quoted(sender)) cannot send SMS to the phone numbers in to: it " + CMSender.rule)
        }
        let body = try requiredString(fields, "body", allowEmpty: true)
        if let control = CMMessageDecoder.firstControlCharacter(in: body) {
            throw .field("body", "body contains the control character \(control)")
        }
        let presentation = try options(fields["options"])
        if body.isEmpty && presentation == PushPresentation() {
            throw .field("body", "body is empty and no options give the push anything to show")
        }
        let appKey = try string(fields, "application_id").map { text throws(SCGError) -> AppKey in
            guard let key = AppKey(text) else { throw .field("application_id", "application_id must be an app key (a GUID)") }
            return key
        }
        let externalID = try boundedText(fields, "external_id")
        let campaignID = try boundedText(fields, "campaign_id")
        let expiryText = try string(fields, "expiry_time")
        let expiry = try expiryText.map { text throws(SCGError) -> Timestamp in
            guard let instant = CMValidity.parseAbsolute(Array(text.utf8)) else {
                throw .field("expiry_time", "expiry_time must be an ISO 8601 date and time with a zone, e.g. 2026-01-31T12:00:00Z")
            }
            return instant
        }
        let scheduled = try string(fields, "scheduled_delivery_time")
        if let scheduled, CMValidity.parseAbsolute(Array(scheduled.utf8)) == nil {
            throw .field("scheduled_delivery_time", "scheduled_delivery_time must be an ISO 8601 date and time with a zone")
        }
        var testFlag: Bool?
        switch fields["test_message_flag"] {
        case nil: break
        case .bool(let flag)?: testFlag = flag
        case .string("true")?: testFlag = true
        case .string("false")?: testFlag = false
        case let other?: throw .field("test_message_flag", "test_message_flag must be true or false, got \(other.kindDescription)")
        }

        var extra: [JSONMember] = [JSONMember(key: "from", value: .string(from)),
                                   JSONMember(key: "to", value: .array(to.map(JSONValue.string)))]
        func add(_ key: String, _ value: JSONValue?) { if let value { extra.append(JSONMember(key: key, value: value)) } }
        add("application_id", appKey.map { .string($0.text) })
        add("external_id", externalID.map(JSONValue.string))
        add("expiry_time", expiryText.map(JSONValue.string))
        add("scheduled_delivery_time", scheduled.map(JSONValue.string))
        add("test_message_flag", testFlag.map(JSONValue.bool))
        add("campaign_id", campaignID.map(JSONValue.string))
        add("failover", fields["failover"])
        return SCGMessageRequest(from: from, sender: sender, to: to, recipients: recipients, body: body,
                                 presentation: presentation, appKey: appKey, externalID: externalID, expiry: expiry,
                                 campaignID: campaignID, extra: JSONValue.object(extra).compactText)
    }

    /// `POST /messaging/message_requests/{id}`: `{"state":"CANCELED"}` is the one change Tandem makes.
    public static func decodeStateChange(_ bytes: [UInt8]) throws(SCGError) -> SCGRequestState {
        let members = try object(bytes)
        let states = members.filter { $0.key == "state" }
        guard states.count == 1, case .string(let text) = states[0].value else {
            throw .field("state", "give {\"state\":\"CANCELED\"}")
        }
        guard text == SCGRequestState.canceled.rawValue else {
            throw .field("state", "state can only be set to CANCELED, got \(JSONText.quoted(text))")
        }
        return .canceled
    }

    /// The `options` map as a push presentation; a fault names the option key.
    static func options(_ value: JSONValue?) throws(SCGError) -> PushPresentation {
        guard let value else { return PushPresentation() }
        guard case .object(let members) = value else {
            throw .field("options", "options must be an object of strings, got \(value.kindDescription)")
        }
        var map: [String: SCGOptionValue] = [:]
        for member in members {
            guard let option = SCGOptionValue(json: member.value) else {
                throw .field("options." + member.key, "options.\(member.key) must be a string, a number or a boolean, "
                    + "got \(member.value.kindDescription)")
            }
            guard map.updateValue(option, forKey: member.key) == nil else {
                throw .field("options." + member.key, "options.\(member.key) appears more than once")
            }
        }
        do {
            return try PushPresentation(scgOptions: map)
        } catch {
            throw .field("options." + error.key, "options.\(error.key): \(Self.describe(error))")
        }
    }

    /// A sentence for an options fault (the key is named by the caller).
    static func describe(_ error: SCGOptionsError) -> String {
        switch error {
        case .unknownKey: "not a push option Tandem knows"
        case .invalidValue(_, let expected): "must be \(expected.rawValue)"
        case .notAJSONObject(_, let problem): "must be a JSON object as text: \(problem)"
        case .mixedArray: "an appdata array holds numbers or strings, not both"
        case .conflictingAppData: "the appdata name is used twice (as two types, or as a value and an array)"
        case .reservedAppData: "the appdata name is reserved by the payload (aps)"
        }
    }

    // MARK: Fields

    private static func object(_ bytes: [UInt8]) throws(SCGError) -> [JSONMember] {
        switch JSONParser.parse(bytes) {
        case .success(.object(let members)): return members
        case .success(let other): throw SCGError(.malformedRequest, "the body must be a JSON object, got \(other.kindDescription)")
        case .failure(let error): throw SCGError(.malformedRequest, "malformed JSON at byte \(error.offset): \(error.problem)")
        }
    }

    private static func addresses(_ value: JSONValue?) throws(SCGError) -> ([String], [Recipient]) {
        guard let value else { throw .field("to", "to is required") }
        guard case .array(let elements) = value else { throw .field("to", "to must be an array of addresses, got \(value.kindDescription)") }
        guard !elements.isEmpty else { throw .field("to", "to has no addresses") }
        guard elements.count <= maximumRecipients else {
            throw .field("to", "to has \(elements.count) addresses; at most \(maximumRecipients) are allowed")
        }
        var raw: [String] = []
        var recipients: [Recipient] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw .field("to[\(index)]", "to[\(index)] must be a string, got \(element.kindDescription)")
            }
            switch SCGAddress.parse(text) {
            case .success(let recipient): recipients.append(recipient)
            case .failure(let error): throw .field("to[\(index)]", "to[\(index)]: \(error.problem)")
            }
            raw.append(text)
        }
        return (raw, recipients)
    }

    private static func string(_ fields: [String: JSONValue], _ key: String) throws(SCGError) -> String? {
        switch fields[key] {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw .field(key, "\(key) must be a string, got \(other.kindDescription)")
        }
    }

    private static func requiredString(_ fields: [String: JSONValue], _ key: String,
                                       allowEmpty: Bool = false) throws(SCGError) -> String {
        guard let text = try string(fields, key) else { throw .field(key, "\(key) is required") }
        if !allowEmpty && text.isEmpty { throw .field(key, "\(key) is empty") }
        return text
    }

    private static func boundedText(_ fields: [String: JSONValue], _ key: String) throws(SCGError) -> String? {
        guard let text = try string(fields, key) else { return nil }
        guard !text.isEmpty, text.count <= maximumTextField, !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .field(key, "\(key) must be 1-\(maximumTextField) characters without control characters")
        }
        return text
    }
}
