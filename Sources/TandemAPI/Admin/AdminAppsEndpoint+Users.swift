import TandemCore
import TandemHTTP

/// cospace's app users (bearer tokens for `/api/push`) over the admin API.
///
/// Guaranteed: a user's bearer token appears only in the answer to its creation; only its SHA-256 is stored.
extension AdminAppsEndpoint {
    func registerUsers(in router: inout HTTPRouter) {
        router.add(.GET, "/admin/apps/{appKey}/users", asyncRoute { request throws(AdminFailure) in try await self.listUsers(request) })
        router.add(.POST, "/admin/apps/{appKey}/users", asyncRoute { request throws(AdminFailure) in try await self.addUser(request) })
        router.add(.DELETE, "/admin/apps/{appKey}/users/{userId}", asyncRoute { request throws(AdminFailure) in
            try await self.revokeUser(request)
        })
    }

    private func users() throws(AdminFailure) -> any CospaceRegistry {
        guard let cospace else { throw AdminFailure(.serviceUnavailable, "app users are not available on this server") }
        return cospace
    }

    private func listUsers(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let registry = try users()
        guard let list = try await call("list app users", { try await registry.users(app: key) }) else { throw Self.unknownApp(key) }
        return AdminJSON.response(.ok, AdminJSON.object(["users": .array(list.map { user in
            AdminJSON.object(["userId": .string(user.id.text), "createdAt": AdminJSON.time(user.createdAt.milliseconds),
                              "revokedAt": user.revokedAt.map { AdminJSON.time($0.milliseconds) } ?? .null])
        })]))
    }

    private func addUser(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let body = try AdminRequestBody(request.body, keys: ["userId"], emptyAllowed: true)
        var generator = SystemRandomNumberGenerator()
        let user: AppUserID
        if let text = try body.string("userId") {
            guard let id = AppUserID(text) else { throw .badRequest("\"userId\" must be a UUID, got \(JSONText.quoted(text))") }
            user = id
        } else {
            user = AppUserID(GUID.random(using: &generator))
        }
        let registry = try users()
        let (token, hash) = AppUserToken.generate()
        let createdAt = now()
        switch try await call("add an app user", { try await registry.addUser(app: key, user: user, tokenHash: hash, at: createdAt) }) {
        case .added:
            logger.info("app user added", ["appKey": .string(key.text), "userId": .string(user.text)])
            return AdminJSON.response(.created, AdminJSON.object([
                "appKey": .string(key.text), "userId": .string(user.text), "token": .string(token),
                "createdAt": AdminJSON.time(createdAt.milliseconds)]))
        case .exists: throw .conflict("user \(user.text) of app \(key.text) exists: revoke it first for a new token")
        case .unknownApp: throw Self.unknownApp(key)
        }
    }

    private func revokeUser(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let text = request.pathParameters["userId"] ?? ""
        guard let user = AppUserID(text) else { throw .badRequest("the user id must be a UUID, got \(JSONText.quoted(text))") }
        let registry = try users()
        let revokedAt = now()
        switch try await call("revoke an app user", { try await registry.revokeUser(app: key, user: user, at: revokedAt) }) {
        case .revoked:
            logger.info("app user revoked", ["appKey": .string(key.text), "userId": .string(user.text)])
            var response = Response.empty(.noContent)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        case .unknownUser: throw .notFound("no active user \(user.text) of app \(key.text)")
        case .unknownApp: throw Self.unknownApp(key)
        }
    }
}
