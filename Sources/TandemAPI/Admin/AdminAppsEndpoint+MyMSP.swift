import TandemCore
import TandemHTTP

/// The admin routes of the myMSP adapter: the user bound to an app (its password is taken, hashed, never
/// returned) and its recipient groups.
extension AdminAppsEndpoint {
    func registerMyMSP(in router: inout HTTPRouter) {
        router.add(.PUT, "/admin/apps/{appKey}/mymsp", asyncRoute { request throws(AdminFailure) in try await self.setMyMSP(request) })
        router.add(.GET, "/admin/apps/{appKey}/mymsp", asyncRoute { request throws(AdminFailure) in try await self.showMyMSP(request) })
        router.add(.PUT, "/admin/apps/{appKey}/mymsp/groups/{name}", asyncRoute { request throws(AdminFailure) in
            try await self.setMyMSPGroup(request)
        })
        router.add(.DELETE, "/admin/apps/{appKey}/mymsp/groups/{name}", asyncRoute { request throws(AdminFailure) in
            try await self.deleteMyMSPGroup(request)
        })
    }

    private func setMyMSP(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let directory = try mymspDirectory()
        let body = try AdminRequestBody(request.body, keys: ["user", "password", "eventUrl"])
        let user = try body.requiredString("user")
        guard !user.isEmpty, user.utf8.count <= 100, user.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .badRequest("\"user\" must be 1 to 100 printable ASCII characters without spaces")
        }
        let password = try body.requiredString("password")
        guard !password.isEmpty else { throw .badRequest("\"password\" must not be empty") }
        let eventURL = try body.string("eventUrl")
        if let eventURL, !(eventURL.hasPrefix("http://") || eventURL.hasPrefix("https://")) || eventURL.contains(" ") {
            throw .badRequest("\"eventUrl\" must be an http:// or https:// URL")
        }
        if let existing = try await call("read the myMSP user", { try await directory.mymspUser(name: user) }), existing.app != key {
            throw .conflict("the myMSP user \(JSONText.quoted(user)) is bound to another app")
        }
        let (salt, hash) = MyMSPPassword.hash(password)
        let now = now()
        guard try await call("set the myMSP user", {
            try await directory.setMyMSPUser(app: key, name: user, passwordSalt: salt, passwordHash: hash, eventURL: eventURL, at: now)
        }) else { throw Self.unknownApp(key) }
        logger.info("myMSP user set", ["appKey": .string(key.text), "user": .string(user)])
        return AdminJSON.response(.ok, AdminJSON.object(["user": .string(user), "eventUrl": eventURL.map(JSONValue.string) ?? .null]))
    }

    private func showMyMSP(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let directory = try mymspDirectory()
        let user = try await mymspUser(key, directory)
        let groups = try await call("read the myMSP groups", { try await directory.mymspGroups(user: user.id) })
        return AdminJSON.response(.ok, AdminJSON.object([
            "user": .string(user.name), "eventUrl": user.eventURL.map(JSONValue.string) ?? .null,
            "groups": .array(groups.map(Self.group)),
        ]))
    }

    private func setMyMSPGroup(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let directory = try mymspDirectory()
        let name = request.pathParameters["name"] ?? ""
        let body = try AdminRequestBody(request.body, keys: ["shortName", "recipients"])
        let shortName = try body.string("shortName")
        for text in [name] + (shortName.map { [$0] } ?? []) {
            guard MyMSPCodec.isGroupName(text) else {
                throw .badRequest("a group name must be 1 to 100 characters, not only digits, without commas or spaces around it")
            }
        }
        var ids: [Int64] = []
        for item in try body.requiredString("recipients").split(separator: ",") {
            guard let id = Int64(String(item).trimmingASCIISpaces()), id > 0 else {
                throw .badRequest("\"recipients\" must be recipient ids separated by commas")
            }
            ids.append(id)
        }
        let user = try await mymspUser(key, directory)
        if let shortName, try await call("read the myMSP groups", { try await directory.mymspGroups(user: user.id) })
            .contains(where: { $0.shortName == shortName && $0.name != name }) {
            throw .conflict("another group of the user has the short name \(JSONText.quoted(shortName))")
        }
        let now = now()
        try await call("set a myMSP group", {
            try await directory.setMyMSPGroup(user: user.id, name: name, shortName: shortName, recipients: ids, at: now)
        })
        let groups = try await call("read the myMSP groups", { try await directory.mymspGroups(user: user.id) })
        guard let group = groups.first(where: { $0.name == name }) else { throw .storeFailed }
        return AdminJSON.response(.ok, Self.group(group))
    }

    private func deleteMyMSPGroup(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try Self.appKey(request)
        let directory = try mymspDirectory()
        let name = request.pathParameters["name"] ?? ""
        let user = try await mymspUser(key, directory)
        guard try await call("delete a myMSP group", { try await directory.deleteMyMSPGroup(user: user.id, name: name) }) else {
            throw .notFound("no group \(JSONText.quoted(name))")
        }
        var response = Response(status: .noContent)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    private static func group(_ group: MyMSPGroup) -> JSONValue {
        AdminJSON.object(["name": .string(group.name), "shortName": group.shortName.map(JSONValue.string) ?? .null,
                          "recipients": .array(group.recipients.map { .number(String($0)) })])
    }

    private func mymspDirectory() throws(AdminFailure) -> any MyMSPDirectory {
        guard let mymsp else { throw AdminFailure(.serviceUnavailable, "the myMSP API is not running in this process") }
        return mymsp
    }

    private func mymspUser(_ key: AppKey, _ directory: any MyMSPDirectory) async throws(AdminFailure) -> MyMSPUser {
        _ = try await details(key)
        guard let user = try await call("read the myMSP user", { try await directory.mymspUser(app: key) }) else {
            throw .notFound("app \(key.text) has no myMSP user")
        }
        return user
    }
}
