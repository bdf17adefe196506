import TandemCore
import TandemEngine
import TandemHTTP

/// The app manager over HTTP, for operators and provisioning scripts (JSON in and out):
///
/// | route | answer |
/// |---|---|
/// | `GET /admin/accounts` | `{"accounts":[{"name","productToken":"1a2b3c4d-****","disabled","createdAt"}]}` |
/// | `POST /admin/accounts` `{"name"}` | 201 `{"name","productToken","createdAt"}` — the only time the token is shown |
/// | `GET /admin/apps` | `{"apps":[app]}` |
/// | `POST /admin/apps` `{"name","account":"<product token>","defaultMessageType"?}` | 201 app + `"appSecret"` |
/// | `GET /admin/apps/{appKey}` | app + `"registrations":{"Unverified":n,…}` |
/// | `POST /admin/apps/{appKey}/rotate-secret` (no body, or `{}`) | `{"appKey","appSecret"}` |
/// | `PUT /admin/apps/{appKey}/apns` `{"keyFile"\|"keyEnv","keyId","teamId","topic","sandbox"?}` | app |
/// | `PUT /admin/apps/{appKey}/fcm` `{"serviceAccountFile"}` | app |
/// | `PUT /admin/apps/{appKey}/type` `{"defaultMessageType"}` | app |
/// | `PUT /admin/apps/{appKey}/sms-protection` `{"mode"?,"allow"?\|"deny"?,"pinLength"?}` | app |
/// | `GET /admin/apps/{appKey}/sms-blocks` | `{"blocks":[{"prefix","region","since","until","sent","verified"}]}` |
/// | `DELETE /admin/apps/{appKey}/sms-blocks/{prefix}` | 204; 404 when the prefix is not blocked |
/// | `PUT /admin/accounts/{productToken}/sms-countries` `{"mode"?,"allow"?\|"deny"?}` | account |
/// | `PUT /admin/apps/{appKey}/mymsp` `{"user","password","eventUrl"?}` | `{"user","eventUrl"}` (never the password) |
/// | `GET /admin/apps/{appKey}/mymsp` | `{"user","eventUrl","groups":[{"name","shortName","recipients":[id]}]}` |
/// | `PUT /admin/apps/{appKey}/mymsp/groups/{name}` `{"shortName"?,"recipients":"id,id,…"}` | the group |
/// | `DELETE /admin/apps/{appKey}/mymsp/groups/{name}` | 204; 404 when there is no such group |
/// | `GET /admin/apps/{appKey}/users` | `{"users":[{"userId","createdAt","revokedAt"}]}` |
/// | `POST /admin/apps/{appKey}/users` `{"userId"?}` | 201 `{"appKey","userId","token","createdAt"}` — the only time the token is shown |
/// | `DELETE /admin/apps/{appKey}/users/{userId}` | 204; 404 when no active user has the id |
///
/// where app is `{"appKey","name","accountName","defaultMessageType","apns":{…}|null,"fcm":{…}|null,"createdAt"}`.
///
/// Every route needs `Authorization: Bearer <admin token>`, compared in constant time; a missing or wrong
/// token is 401 with `WWW-Authenticate: Bearer realm="admin"`, and without a configured token every route
/// is 403 (the API is off). Errors are `{"error":"…"}`: 400 for a malformed body (not one JSON object,
/// an unknown or repeated key, a missing or mistyped value, credentials that do not validate, a key file
/// that does not exist on the server), 404 for an unknown app key or account product token, 409 for an
/// app on a disabled account, 500 when the store fails (details only in the server log).
///
/// Guaranteed: the app secret appears only in the answers to creation and rotation, and product tokens only
/// in the answer to account creation; log lines name apps by key and never hold a secret; key files are
/// checked to exist, never read. Every answer carries `Cache-Control: no-store`.
/// Not guaranteed: that the caller's view is current — two operators changing one app race, last write wins
/// (except APNs and FCM credentials, which are changed independently).
public struct AdminAppsEndpoint: Sendable {
    /// The 403 message when no admin token is configured.
    public static let disabledMessage = "the admin API is disabled: set TANDEM_ADMIN_TOKEN"

    let registry: any AppRegistry
    let administration: Administration
    private let gate: AdminGate
    let now: @Sendable () -> Timestamp
    private let isRegularFile: @Sendable (String) -> Bool
    let logger: Logger
    /// The running defence against SMS pumping (its prefix blocks); nil: the block routes answer 503.
    let prefixBlocks: (any PrefixBlockControl)?
    /// The myMSP users and groups; nil: the myMSP routes answer 503.
    let mymsp: (any MyMSPDirectory)?
    /// cospace's app users; nil: those routes answer 503.
    let cospace: (any CospaceRegistry)?

    /// - Parameters:
    ///   - adminToken: the bearer token; nil or empty turns the API off (every route 403).
    ///   - now: creation times of new accounts and apps.
    ///   - isRegularFile: whether a key file exists on the server (it must not read the file).
    ///   - prefixBlocks: the device API's prefix blocks, listed and lifted by the admin API.
    public init(registry: any AppRegistry, adminToken: String?, now: @escaping @Sendable () -> Timestamp,
                isRegularFile: @escaping @Sendable (String) -> Bool, logger: Logger = .discarding,
                prefixBlocks: (any PrefixBlockControl)? = nil, cospace: (any CospaceRegistry)? = nil,
                mymsp: (any MyMSPDirectory)? = nil) {
        self.cospace = cospace
        self.registry = registry
        self.administration = Administration(registry: registry, now: now)
        self.now = now
        self.isRegularFile = isRegularFile
        self.logger = logger.with(["component": "admin"])
        self.gate = AdminGate(tokens: [adminToken], logger: self.logger, disabledMessage: Self.disabledMessage)
        self.prefixBlocks = prefixBlocks
        self.mymsp = mymsp
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/admin/accounts", asyncRoute { _ throws(AdminFailure) in try await self.listAccounts() })
        router.add(.POST, "/admin/accounts", asyncRoute { request throws(AdminFailure) in try await self.createAccount(request) })
        router.add(.GET, "/admin/apps", asyncRoute { _ throws(AdminFailure) in try await self.listApps() })
        router.add(.POST, "/admin/apps", asyncRoute { request throws(AdminFailure) in try await self.createApp(request) })
        router.add(.GET, "/admin/apps/{appKey}", asyncRoute { request throws(AdminFailure) in
            AdminJSON.response(.ok, AdminJSON.app(try await self.details(try Self.appKey(request))))
        })
        router.add(.POST, "/admin/apps/{appKey}/rotate-secret", asyncRoute { request throws(AdminFailure) in
            try await self.rotateSecret(request)
        })
        router.add(.PUT, "/admin/apps/{appKey}/apns", asyncRoute { request throws(AdminFailure) in try await self.setAPNs(request) })
        router.add(.PUT, "/admin/apps/{appKey}/fcm", asyncRoute { request throws(AdminFailure) in try await self.setFCM(request) })
        router.add(.PUT, "/admin/apps/{appKey}/type", asyncRoute { request throws(AdminFailure) in try await self.setType(request) })
        registerSMSProtection(in: &router)
        registerMyMSP(in: &router)
        registerUsers(in: &router)
    }

    // MARK: - Authorization

    func syncRoute(_ body: @escaping @Sendable (Request) throws(AdminFailure) -> Response) -> Handler {
        .sync { request in
            if let refusal = self.refusal(request) { return refusal }
            do throws(AdminFailure) {
                return try body(request)
            } catch {
                return error.response
            }
        }
    }

    func asyncRoute(_ body: @escaping @Sendable (Request) async throws(AdminFailure) -> Response) -> Handler {
        .async { request in
            if let refusal = self.refusal(request) { return refusal }
            do throws(AdminFailure) {
                return try await body(request)
            } catch {
                return error.response
            }
        }
    }

    /// 403 when the API is off, 401 with a challenge unless the bearer token matches; nil when it does.
    func refusal(_ request: Request) -> Response? { gate.refusal(request) }

    // MARK: - Accounts

    private func listAccounts() async throws(AdminFailure) -> Response {
        let accounts = try await call("list accounts") { try await registry.accounts() }
        return AdminJSON.response(.ok, AdminJSON.object(["accounts": .array(accounts.map(AdminJSON.account))]))
    }

    private func createAccount(_ request: Request) async throws(AdminFailure) -> Response {
        let body = try AdminRequestBody(request.body, keys: ["name"])
        let name = try Self.name(body)
        let account = try await administer { () throws(Administration.Failure) in try await administration.createAccount(name: name) }
        logger.info("account created", ["account": .string(account.name)])
        return AdminJSON.response(.created, AdminJSON.object([
            "name": .string(account.name), "productToken": .string(account.productToken.text),
            "createdAt": AdminJSON.time(account.createdAt),
        ]))
    }

    // MARK: - Apps

    private func listApps() async throws(AdminFailure) -> Response {
        let apps = try await call("list apps") { try await registry.apps() }
        return AdminJSON.response(.ok, AdminJSON.object(["apps": .array(apps.map(AdminJSON.app))]))
    }

    private func createApp(_ request: Request) async throws(AdminFailure) -> Response {
        let body = try AdminRequestBody(request.body, keys: ["name", "account", "defaultMessageType"])
        let name = try Self.name(body)
        let tokenText = try body.requiredString("account")
        guard let token = ProductToken(tokenText) else {
            throw .badRequest("\"account\" must be the account's product token (a GUID)")
        }
        let type = try body.string("defaultMessageType").map { text throws(AdminFailure) in try Self.messageType(text) } ?? .default
        let (app, account) = try await administer { () throws(Administration.Failure) in
            try await administration.createApp(name: name, account: token, defaultMessageType: type)
        }
        logger.info("app created", ["appKey": .string(app.key.text), "account": .string(account.name)])
        let summary = AppSummary(app: app, accountName: account.name, pushCredentials: AppPushCredentials())
        var response = AdminJSON.response(.created, AdminJSON.createdApp(summary))
        response.headers.add(name: "Location", value: "/admin/apps/\(app.key.text)")
        return response
    }

    private func rotateSecret(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        _ = try AdminRequestBody(request.body, keys: [], emptyAllowed: true)
        var generator = SystemRandomNumberGenerator()
        let secret = AppSecret.random(using: &generator)
        guard try await call("rotate the secret", { try await registry.rotateSecret(key: key, to: secret) }) else {
            throw Self.unknownApp(key)
        }
        logger.info("app secret rotated", ["appKey": .string(key.text)])
        return AdminJSON.response(.ok, AdminJSON.object(["appKey": .string(key.text), "appSecret": .string(secret.text)]))
    }

    private func setAPNs(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let body = try AdminRequestBody(request.body, keys: ["keyFile", "keyEnv", "keyId", "teamId", "topic", "sandbox"])
        let source: APNsKeySource
        switch (try body.string("keyFile"), try body.string("keyEnv")) {
        case (let path?, nil): source = .file(path)
        case (nil, let name?): source = .environment(name)
        case (_?, _?): throw .badRequest("give either \"keyFile\" or \"keyEnv\", not both")
        case (nil, nil): throw .badRequest("\"keyFile\" (a .p8 file on the server) or \"keyEnv\" (an environment variable) is required")
        }
        let credentials = APNsCredentials(keySource: source, keyID: try body.requiredString("keyId"),
                                          teamID: try body.requiredString("teamId"), topic: try body.requiredString("topic"),
                                          sandbox: try body.bool("sandbox") ?? false)
        try Self.validate { () throws(PushCredentialsError) in try credentials.validate() }
        if case .file(let path) = source { try expectFile(path, what: "the APNs key file (.p8)") }
        return try await change(key, "set the APNs credentials", log: "apns credentials set") {
            try await registry.setAPNsCredentials(key: key, credentials)
        }
    }

    private func setFCM(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let body = try AdminRequestBody(request.body, keys: ["serviceAccountFile"])
        let credentials = FCMCredentials(serviceAccountPath: try body.requiredString("serviceAccountFile"))
        try Self.validate { () throws(PushCredentialsError) in try credentials.validate() }
        try expectFile(credentials.serviceAccountPath, what: "the FCM service-account file")
        return try await change(key, "set the FCM credentials", log: "fcm credentials set") {
            try await registry.setFCMCredentials(key: key, credentials)
        }
    }

    private func setType(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let body = try AdminRequestBody(request.body, keys: ["defaultMessageType"])
        let type = try Self.messageType(try body.requiredString("defaultMessageType"))
        return try await change(key, "set the default type", log: "default type set") {
            try await registry.setDefaultMessageType(key: key, type)
        }
    }

    // MARK: - Shared

    /// Runs `write`; 404 when it found no app; else the app as it is now.
    func change(_ key: AppKey, _ action: String, log: String,
                        _ write: () async throws -> Bool) async throws(AdminFailure) -> Response {
        guard try await call(action, write) else { throw Self.unknownApp(key) }
        logger.info(log, ["appKey": .string(key.text)])
        return AdminJSON.response(.ok, AdminJSON.app(try await details(key)))
    }

    func details(_ key: AppKey) async throws(AdminFailure) -> AppDetails {
        guard let details = try await call("read the app", { try await registry.appDetails(key: key) }) else { throw Self.unknownApp(key) }
        return details
    }

    private func expectFile(_ path: String, what: String) throws(AdminFailure) {
        guard isRegularFile(path) else { throw .badRequest("no file at \(path): \(what) must exist on the server") }
    }

    /// A registry call; its error goes to the log (never to the client) as a 500.
    func call<T>(_ action: String, _ body: () throws -> T) throws(AdminFailure) -> T {
        do {
            return try body()
        } catch {
            logger.error("admin store failure", ["action": .string(action), "error": .string("\(error)")])
            throw .storeFailed
        }
    }

    func call<T>(_ action: String, _ body: () async throws -> T) async throws(AdminFailure) -> T {
        do {
            return try await body()
        } catch {
            logger.error("admin store failure", ["action": .string(action), "error": .string("\(error)")])
            throw .storeFailed
        }
    }

    private static func validate(_ check: () throws(PushCredentialsError) -> Void) throws(AdminFailure) {
        do {
            try check()
        } catch {
            throw .badRequest(error.description)
        }
    }

    static func appKey(_ request: Request) throws(AdminFailure) -> AppKey {
        let text = request.pathParameters["appKey"] ?? ""
        guard let key = AppKey(text) else { throw .badRequest("the app key must be a GUID, got \(JSONText.quoted(text))") }
        return key
    }

    static func unknownApp(_ key: AppKey) -> AdminFailure { .notFound("no app has key \(key.text)") }

    /// Runs an ``Administration`` call, its refusals in the admin API's words.
    private func administer<T>(_ body: () async throws(Administration.Failure) -> T) async throws(AdminFailure) -> T {
        do {
            return try await body()
        } catch {
            switch error {
            case .invalidName: throw .badRequest("\"name\" must be 1 to 100 printable characters")
            case .unknownAccount: throw .notFound(error.description)
            case .accountDisabled: throw .conflict(error.description)
            case .store(let problem):
                logger.error("admin store failure", ["error": .string(problem)])
                throw .storeFailed
            }
        }
    }

    private static func name(_ body: AdminRequestBody) throws(AdminFailure) -> String {
        let name = try body.requiredString("name").trimmingASCIISpaces()
        guard Account.isValidName(name) else { throw .badRequest("\"name\" must be 1 to 100 printable characters") }
        return name
    }

    private static func messageType(_ text: String) throws(AdminFailure) -> AppMessageType {
        guard let type = AppMessageType(wireName: text) else {
            throw .badRequest("\"defaultMessageType\" must be Default, OTP or Critical, got \(JSONText.quoted(text))")
        }
        return type
    }
}
