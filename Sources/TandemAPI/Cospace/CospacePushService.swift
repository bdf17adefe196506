import TandemCore

/// cospace's per-user token registry, `GET` and `POST /api/push`, over the one registry (``CospaceRegistry``):
/// a user's FCM registration ids and APNs device tokens are registrations of the user's app.
///
/// - Authentication: `Authorization: Bearer <user token>`. The token's SHA-256 finds the user (the stored
///   hash is then compared with it in constant time); a missing header, an unknown token or a revoked user
///   is 401 `{"error":"…"}` with `WWW-Authenticate: Bearer realm="cospace"`. The token names the app too.
/// - `GET`: `{"gcm":{"sender_id","registration_ids":[…]},"apns":{"device_tokens":{"<hex>":{"application_id",
///   "sandbox","apns_topic"?}}}}` — the user's live tokens (a token a provider declared dead is gone),
///   oldest first; `sender_id` is the app's ``App/senderID`` (null when unset); `sandbox` is the token's own
///   environment, else the app's APNs one; `apns_topic` only when the token was added with one.
/// - `POST`: ``CospacePushCodec`` decides the syntax; an APNs add whose application id is not the app's
///   (APNs credentials with that team id and that bundle id as topic) is 400 `{"status":"unknown-appid"}`.
///   Success (adding an existing token updates it; deleting an absent one changes nothing) is 200 `{}`.
///
/// Not guaranteed: that a push in flight to a deleted token stops.
public struct CospacePushService: Sendable {
    let registry: any CospaceRegistry
    let directory: any SenderDirectory
    let credentials: any PushCredentialsSource
    let now: @Sendable () -> Timestamp
    let logger: Logger

    public init(registry: any CospaceRegistry, directory: any SenderDirectory, credentials: any PushCredentialsSource,
                now: @escaping @Sendable () -> Timestamp, logger: Logger = .discarding) {
        self.registry = registry
        self.directory = directory
        self.credentials = credentials
        self.now = now
        self.logger = logger.with(["component": "cospace"])
    }

    /// An answer: status and JSON body, plus whether it is an authentication challenge.
    public struct Reply: Error, Sendable, Hashable {
        public var status: Int
        public var document: JSONValue
        public var challenge: Bool = false
    }

    /// `GET /api/push`.
    public func tokens(authorization: String?) async -> Reply {
        let user: AppUser
        switch await authenticate(authorization) {
        case .success(let found): user = found
        case .failure(let reply): return reply
        }
        do {
            let stored = try await registry.tokens(app: user.app, user: user.id)
            let app = try await directory.app(key: user.app)
            let appSandbox = try await credentials.pushCredentials(for: user.app)?.apns?.sandbox ?? false
            return Reply(status: 200, document: Self.document(stored, senderID: app?.senderID, appSandbox: appSandbox))
        } catch {
            logger.error("cospace tokens could not be read", ["app": .string(user.app.text), "error": .string("\(error)")])
            return Self.internalError
        }
    }

    /// `POST /api/push`.
    public func change(authorization: String?, body: [UInt8]) async -> Reply {
        let user: AppUser
        switch await authenticate(authorization) {
        case .success(let found): user = found
        case .failure(let reply): return reply
        }
        let change: CospacePushChange
        switch CospacePushCodec.decode(body) {
        case .success(let decoded): change = decoded
        case .failure(let refusal): return Reply(status: 400, document: refusal.document)
        }
        do {
            switch change {
            case .add(let token):
                if case .apns(_, let applicationID, _, _) = token {
                    let apns = try await credentials.pushCredentials(for: user.app)?.apns
                    guard let apns, apns.teamID == CospacePatterns.teamID(ofApplicationID: applicationID),
                          apns.topic == CospacePatterns.bundleID(ofApplicationID: applicationID) else {
                        return Reply(status: 400, document: CospacePushRefusal.unknownApplicationID.document)
                    }
                }
                try await registry.addToken(token, app: user.app, user: user.id, at: now())
            case .delete(let token, let platform):
                try await registry.deleteToken(token, platform: platform, app: user.app, user: user.id)
            }
            return Reply(status: 200, document: .object([]))
        } catch {
            logger.error("cospace token change failed", ["app": .string(user.app.text), "error": .string("\(error)")])
            return Self.internalError
        }
    }

    /// The user a bearer token names, or the 401 (or 500) answer.
    func authenticate(_ authorization: String?) async -> Result<AppUser, Reply> {
        guard let authorization, let presented = Self.bearer(authorization), !presented.isEmpty else {
            return .failure(Self.unauthorized("Authorization: Bearer <user token> is required"))
        }
        let hash = AppUserToken.hash(presented)
        let found: (user: AppUser, storedHash: String)?
        do {
            found = try await registry.user(tokenHash: hash)
        } catch {
            logger.error("cospace user lookup failed", ["error": .string("\(error)")])
            return .failure(Self.internalError)
        }
        guard let found, ConstantTime.equals(Array(found.storedHash.utf8), Array(hash.utf8)) else {
            return .failure(Self.unauthorized("the bearer token is not valid"))
        }
        guard found.user.isActive else { return .failure(Self.unauthorized("the bearer token was revoked")) }
        return .success(found.user)
    }

    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingASCIISpaces()
    }

    static func unauthorized(_ message: String) -> Reply {
        Reply(status: 401, document: .object([JSONMember(key: "error", value: .string(message))]), challenge: true)
    }

    static let internalError = Reply(status: 500, document: .object([JSONMember(key: "error", value: .string("internal error"))]))

    /// The `GET` document (see the type's documentation).
    static func document(_ tokens: CospaceTokens, senderID: String?, appSandbox: Bool) -> JSONValue {
        var registrationIDs: [JSONValue] = []
        var deviceTokens: [JSONMember] = []
        for entry in tokens.entries {
            switch entry.token {
            case .gcm(let id):
                registrationIDs.append(.string(id.text))
            case .apns(let token, let applicationID, let sandbox, let topic):
                var members = [JSONMember(key: "application_id", value: .string(applicationID)),
                               JSONMember(key: "sandbox", value: .bool(sandbox ?? appSandbox))]
                if let topic { members.append(JSONMember(key: "apns_topic", value: .string(topic))) }
                deviceTokens.append(JSONMember(key: token.text, value: .object(members)))
            }
        }
        return .object([
            JSONMember(key: "gcm", value: .object([JSONMember(key: "sender_id", value: senderID.map(JSONValue.string) ?? .null),
                                                   JSONMember(key: "registration_ids", value: .array(registrationIDs))])),
            JSONMember(key: "apns", value: .object([JSONMember(key: "device_tokens", value: .object(deviceTokens))])),
        ])
    }
}
