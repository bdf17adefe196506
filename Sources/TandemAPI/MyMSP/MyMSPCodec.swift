import TandemCore

/// The myMSP DPN wire format, pure: the parameters of each method (from a query string or an
/// `application/x-www-form-urlencoded` body, UTF-8) checked into typed requests, each failure as its error
/// number. Names are matched ASCII case-insensitively; the first occurrence of a name counts. An optional
/// parameter given empty counts as absent.
///
/// Order of checks: `user` (23 missing, 22 empty), then `pwd` for `send` and the event poll (25, 24) —
/// ``credentials(_:password:)`` — then, once the service has authenticated the user, the method's own
/// parameters in the order the seed lists them.
public enum MyMSPCodec {
    public typealias Parameters = [(name: String, value: String)]

    /// The most bytes `message` may have (UTF-8).
    public static let maxMessageBytes = 4_000
    /// The longest `collapsekey` and `restrictedpackagename` (characters).
    public static let maxOptionCharacters = 400
    /// The longest `timetolive` (4 weeks).
    public static let maxTimeToLive = 2_419_200

    public struct Credentials: Sendable, Hashable {
        public let user: String
        /// Nil for the app methods (which carry no password).
        public let password: String?
    }

    public struct Subscribe: Sendable, Hashable {
        public let message: String
        public let recipient: Int64?
        public let provider: MyMSPServiceProvider
        public let key: PushToken
    }

    public struct UpdateKey: Sendable, Hashable {
        public let recipient: Int64
        public let provider: MyMSPServiceProvider
        public let key: PushToken
    }

    public struct Unsubscribe: Sendable, Hashable {
        public let message: String
        public let recipient: Int64
        public let provider: MyMSPServiceProvider
    }

    public struct Get: Sendable, Hashable {
        public let recipient: Int64
        public let lastMsgno: Int64
        public let sentAfter: Timestamp?
    }

    public struct Send: Sendable, Hashable {
        public let message: String
        /// Recipient ids, in the order given.
        public let recipientIDs: [Int64]
        /// Group names or short names, in the order given.
        public let groups: [String]
        public let delayWhileIdle: Bool
        public let collapseKey: String?
        /// Seconds.
        public let timeToLive: Int?
        public let restrictedPackageName: String?
    }

    public struct Poll: Sendable, Hashable {
        public let lastMsgID: Int64
        public let clean: Bool
    }

    // MARK: Parameters

    /// The first value of `name` (ASCII case-insensitive), nil when absent.
    static func value(_ parameters: Parameters, _ name: String) -> String? {
        parameters.first { asciiCaseInsensitiveEquals($0.name, name) }?.value
    }

    /// Whether `a` and `b` are the same bytes when ASCII letters are compared case-insensitively (no lowered
    /// copies: every method looks up several names among every parameter).
    static func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (0x61...0x7A).contains(x | 0x20))
        }
    }

    /// An optional parameter: nil when absent or empty.
    static func optional(_ parameters: Parameters, _ name: String) -> String? {
        guard let value = value(parameters, name), !value.isEmpty else { return nil }
        return value
    }

    public static func credentials(_ parameters: Parameters, password: Bool) throws(MyMSPError) -> Credentials {
        guard let user = value(parameters, "user") else { throw .userMissing }
        guard !user.isEmpty else { throw .userEmpty }
        guard password else { return Credentials(user: user, password: nil) }
        guard let pwd = value(parameters, "pwd") else { throw .passwordMissing }
        guard !pwd.isEmpty else { throw .passwordEmpty }
        return Credentials(user: user, password: pwd)
    }

    // MARK: Methods

    public static func subscribe(_ parameters: Parameters) throws(MyMSPError) -> Subscribe {
        let message = try optionalMessage(parameters)
        let recipient = try optional(parameters, "recipientid").map { (text) throws(MyMSPError) in try recipientID(text) }
        return Subscribe(message: message, recipient: recipient, provider: try provider(parameters), key: try key(parameters))
    }

    public static func updateKey(_ parameters: Parameters) throws(MyMSPError) -> UpdateKey {
        UpdateKey(recipient: try requiredRecipient(parameters), provider: try provider(parameters), key: try key(parameters))
    }

    public static func unsubscribe(_ parameters: Parameters) throws(MyMSPError) -> Unsubscribe {
        let message = try optionalMessage(parameters)
        return Unsubscribe(message: message, recipient: try requiredRecipient(parameters), provider: try provider(parameters))
    }

    public static func get(_ parameters: Parameters) throws(MyMSPError) -> Get {
        let recipient = try requiredRecipient(parameters)
        let last = try msgno(value(parameters, "lastmsgno"))
        let sentAfter = try optional(parameters, "sentafter").map { (text) throws(MyMSPError) -> Timestamp in
            guard let instant = MyMSPTime.parseCompact(text) else { throw .invalidSentAfter }
            return instant
        }
        return Get(recipient: recipient, lastMsgno: last, sentAfter: sentAfter)
    }

    /// Whether `name` can name a group in a `send`'s recipients: 1 to 100 characters, not only digits (that is a
    /// recipient id), no comma code point (the list's separator), no spaces around it (a send's items are trimmed).
    public static func isGroupName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && !name.utf8.contains(UInt8(ascii: ","))
            && !name.utf8.allSatisfy { (0x30...0x39).contains($0) } && name == name.trimmingASCIISpaces()
    }

    public static func send(_ parameters: Parameters) throws(MyMSPError) -> Send {
        guard let message = value(parameters, "message"), message.utf8.count <= maxMessageBytes else { throw .invalidMessage }
        var ids: [Int64] = []
        var groups: [String] = []
        // Split on the comma's code point, not on characters: a comma followed by a combining mark is one character
        // (found by fuzzing: such a "group name" still held a comma).
        for item in (value(parameters, "recipients") ?? "").unicodeScalars.split(separator: ",", omittingEmptySubsequences: true) {
            let name = String(String.UnicodeScalarView(item)).trimmingASCIISpaces()
            guard !name.isEmpty else { continue }
            if name.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                // Digits only: a recipient id (one too large to be any is filtered out like an unknown id).
                if let id = Int64(name) { ids.append(id) }
            } else {
                groups.append(name)
            }
        }
        guard !ids.isEmpty || !groups.isEmpty else { throw .noRecipients }
        let delay: Bool
        switch optional(parameters, "delaywhileidle")?.lowercased() {
        case nil, "false"?: delay = false
        case "true"?: delay = true
        case _?: throw .invalidDelayWhileIdle
        }
        let collapseKey = optional(parameters, "collapsekey")
        if let collapseKey, !isOption(collapseKey) { throw .invalidCollapseKey }
        let ttl = try optional(parameters, "timetolive").map { (text) throws(MyMSPError) -> Int in
            guard text.utf8.count <= 7, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int(text),
                  seconds <= maxTimeToLive else { throw .invalidTimeToLive }
            return seconds
        }
        let package = optional(parameters, "restrictedpackagename")
        if let package, !isOption(package) { throw .invalidRestrictedPackageName }
        return Send(message: message, recipientIDs: ids, groups: groups, delayWhileIdle: delay, collapseKey: collapseKey,
                    timeToLive: ttl, restrictedPackageName: package)
    }

    public static func poll(_ parameters: Parameters) throws(MyMSPError) -> Poll {
        let last = try msgno(value(parameters, "lastMsgId"))
        return Poll(lastMsgID: last, clean: value(parameters, "clean")?.lowercased() == "true")
    }

    // MARK: Values

    private static func optionalMessage(_ parameters: Parameters) throws(MyMSPError) -> String {
        let message = value(parameters, "message") ?? ""
        guard message.utf8.count <= maxMessageBytes else { throw .invalidMessage }
        return message
    }

    private static func requiredRecipient(_ parameters: Parameters) throws(MyMSPError) -> Int64 {
        guard let text = value(parameters, "recipientid") else { throw .invalidRecipientID }
        return try recipientID(text)
    }

    /// A recipient id: 1 to 18 digits, above 0.
    static func recipientID(_ text: String) throws(MyMSPError) -> Int64 {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let id = Int64(text), id > 0 else { throw .invalidRecipientID }
        return id
    }

    /// `lastmsgno` / `lastMsgId`: missing → 392; not 1 to 18 digits → 391.
    static func msgno(_ text: String?) throws(MyMSPError) -> Int64 {
        guard let text else { throw .msgnoMissing }
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let number = Int64(text) else { throw .invalidMsgno }
        return number
    }

    /// `spid`: `apns`, `gcm` or `fcm` (ASCII case-insensitive); missing, empty or anything else → 60.
    static func provider(_ parameters: Parameters) throws(MyMSPError) -> MyMSPServiceProvider {
        guard let text = value(parameters, "spid"), let provider = MyMSPServiceProvider(rawValue: text.lowercased()) else {
            throw .invalidSpid
        }
        return provider
    }

    /// `key`: a push token (printable ASCII, no spaces, at most 4,096 bytes); missing, empty or otherwise → 61.
    static func key(_ parameters: Parameters) throws(MyMSPError) -> PushToken {
        guard let text = value(parameters, "key"), !text.isEmpty, text.utf8.count <= 4_096,
              text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), let token = PushToken(text) else { throw .invalidKey }
        return token
    }

    /// `collapsekey` / `restrictedpackagename`: at most 400 characters, no control characters.
    private static func isOption(_ text: String) -> Bool {
        text.count <= maxOptionCharacters && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
