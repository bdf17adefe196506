import TandemCore

/// One cospace push event as a backend posts it to `POST /v1.0/push-events`:
///
///     {"appKey": "<app key>", "owner": "<user id>", "message": "<event name>", "data": {…}}
///
/// and the one ``PushPresentation`` every device of the owner gets: data only (``PushPresentation/dataOnly``),
/// its custom data `owner`, `message` and then `data`'s members in order. APNs then sends
/// `{"aps":{"content-available":1},"owner":…,"message":…,<data with its JSON types>}` as a background push,
/// FCM a data message with the same members, every value a string (`2` → `"2"`, `true` → `"true"`) — the
/// seed's typing ("GCM suggests to only use strings").
///
/// Decoding rules (each failure names the key): one JSON object, keys as written (case-sensitive), no other
/// key, none repeated; `appKey` a GUID; `owner` a UUID (written back in lower case); `message` 1–64
/// characters of `a-z A-Z 0-9 _ . -`; `data` optional, an object whose values are not null and whose keys
/// are unique and none of `owner`, `message`, `aps`, or what FCM refuses in data (`from`, `notification`,
/// `message_type`, `collapse_key`, a key starting with `google` or `gcm`).
/// Not checked here: whether the payload fits the providers' limits (the intake refuses an oversize one).
public struct CospaceEvent: Sendable, Hashable {
    public let app: AppKey
    public let owner: AppUserID
    public let message: String
    public let data: [JSONMember]

    public init(app: AppKey, owner: AppUserID, message: String, data: [JSONMember]) {
        self.app = app
        self.owner = owner
        self.message = message
        self.data = data
    }

    /// The presentation every device of the owner gets.
    public var presentation: PushPresentation {
        var presentation = PushPresentation()
        presentation.dataOnly = true
        presentation.customData = [JSONMember(key: "owner", value: .string(owner.text)),
                                   JSONMember(key: "message", value: .string(message))] + data
        return presentation
    }

    /// A refused body: the key at fault (nil for the body as a whole) and why.
    public struct Refusal: Error, Sendable, Hashable {
        public let field: String?
        public let problem: String

        public var document: JSONValue {
            var members = [JSONMember(key: "error", value: .string(problem))]
            if let field { members.append(JSONMember(key: "field", value: .string(field))) }
            return .object(members)
        }
    }

    public static func decode(_ body: [UInt8]) -> Result<CospaceEvent, Refusal> {
        Result { () throws(Refusal) in try decodeOrThrow(body) }
    }

    private static func decodeOrThrow(_ body: [UInt8]) throws(Refusal) -> CospaceEvent {
        let value: JSONValue
        switch JSONParser.parse(body) {
        case .success(let parsed): value = parsed
        case .failure(let error): throw Refusal(field: nil, problem: "the body is not valid JSON: \(error.problem) (at byte \(error.offset))")
        }
        guard case .object(let members) = value else {
            throw Refusal(field: nil, problem: "the body must be a JSON object, not \(value.kindDescription)")
        }
        var fields: [String: JSONValue] = [:]
        for member in members {
            guard ["appKey", "owner", "message", "data"].contains(member.key) else {
                throw Refusal(field: member.key, problem: "unknown key \(JSONText.quoted(member.key)): expected \"appKey\", \"owner\", \"message\", \"data\"")
            }
            guard fields.updateValue(member.value, forKey: member.key) == nil else {
                throw Refusal(field: member.key, problem: "\(JSONText.quoted(member.key)) is given twice")
            }
        }
        guard case .string(let appText)? = fields["appKey"], let app = AppKey(appText) else {
            throw Refusal(field: "appKey", problem: "\"appKey\" must be an app key (a GUID string)")
        }
        guard case .string(let ownerText)? = fields["owner"], let owner = AppUserID(ownerText) else {
            throw Refusal(field: "owner", problem: "\"owner\" must be a user id (a UUID string)")
        }
        guard case .string(let message)? = fields["message"], isEventName(message) else {
            throw Refusal(field: "message", problem: "\"message\" must be an event name of 1-64 characters a-z A-Z 0-9 _ . -")
        }
        var data: [JSONMember] = []
        switch fields["data"] {
        case nil: break
        case .object(let list)?: data = list
        case let other?: throw Refusal(field: "data", problem: "\"data\" must be an object, not \(other.kindDescription)")
        }
        var seen: Set<String> = []
        for member in data {
            let key = member.key
            guard seen.insert(key).inserted else { throw Refusal(field: "data.\(key)", problem: "data key \(JSONText.quoted(key)) is given twice") }
            guard !reservedKeys.contains(key), !key.hasPrefix("google"), !key.hasPrefix("gcm") else {
                throw Refusal(field: "data.\(key)", problem: "data key \(JSONText.quoted(key)) is reserved (owner, message, aps, and what FCM refuses)")
            }
            if case .null = member.value { throw Refusal(field: "data.\(key)", problem: "data values must not be null") }
        }
        return CospaceEvent(app: app, owner: owner, message: message, data: data)
    }

    private static let reservedKeys: Set<String> = ["owner", "message", "aps", "from", "notification", "message_type", "collapse_key"]

    private static func isEventName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"): true
            default: false
            }
        }
    }
}
