import TandemCore
import TandemHTTP

/// The admin API's routes for the SCG messaging API, behind the same admin bearer token as
/// ``AdminAppsEndpoint`` (whose authorization and error shape they share):
///
/// | route | answer |
/// |---|---|
/// | `GET /admin/accounts/{productToken}/scg-tokens` | `{"tokens":[{"id","label","createdAt","revokedAt"}]}` |
/// | `POST /admin/accounts/{productToken}/scg-tokens` `{"label"?}` | 201 `{"id","token","label","createdAt"}` — the only time the token is shown |
/// | `DELETE /admin/accounts/{productToken}/scg-tokens/{id}` | 204; 404 when the account has no such live token |
/// | `PUT /admin/apps/{appKey}/sender-id` `{"senderId": "…" \| null}` | the app; 409 when another app of the account has it |
///
/// Guaranteed: only the SHA-256 digest of a token is stored, and the token appears only in the answer to
/// its creation. A running server stops accepting a revoked token within 5 seconds.
public struct AdminSCGEndpoint: Sendable {
    let admin: AdminAppsEndpoint
    let tokens: any SCGTokenStore
    let senderIDs: any AppSenderIDStore

    public init(admin: AdminAppsEndpoint, tokens: any SCGTokenStore, senderIDs: any AppSenderIDStore) {
        self.admin = admin
        self.tokens = tokens
        self.senderIDs = senderIDs
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/admin/accounts/{productToken}/scg-tokens", admin.asyncRoute { request throws(AdminFailure) in
            try await self.list(request)
        })
        router.add(.POST, "/admin/accounts/{productToken}/scg-tokens", admin.asyncRoute { request throws(AdminFailure) in
            try await self.create(request)
        })
        router.add(.DELETE, "/admin/accounts/{productToken}/scg-tokens/{id}", admin.asyncRoute { request throws(AdminFailure) in
            try await self.revoke(request)
        })
        router.add(.PUT, "/admin/apps/{appKey}/sender-id", admin.asyncRoute { request throws(AdminFailure) in
            try await self.setSenderID(request)
        })
    }

    private func list(_ request: Request) async throws(AdminFailure) -> Response {
        let account = try Self.productToken(request)
        guard let found = try await admin.call("list SCG tokens", { try await tokens.scgTokens(account: account) }) else {
            throw Self.unknownAccount(account)
        }
        return AdminJSON.response(.ok, AdminJSON.object(["tokens": .array(found.map { token in
            AdminJSON.object(["id": .number(String(token.id)), "label": .string(token.label),
                              "createdAt": AdminJSON.time(token.createdAt.milliseconds),
                              "revokedAt": token.revokedAt.map { AdminJSON.time($0.milliseconds) } ?? .null])
        })]))
    }

    private func create(_ request: Request) async throws(AdminFailure) -> Response {
        let account = try Self.productToken(request)
        let body = try AdminRequestBody(request.body, keys: ["label"], emptyAllowed: true)
        let label = try body.string("label") ?? ""
        guard label.count <= 100, !label.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw .badRequest("\"label\" must be at most 100 characters without control characters")
        }
        let token = SCGTokenAuthenticator.newToken()
        let created = try await admin.call("create an SCG token") {
            try await tokens.insertSCGToken(account: account, digest: SCGTokenAuthenticator.digest(token), label: label,
                                            createdAt: admin.now())
        }
        guard let created else { throw Self.unknownAccount(account) }
        admin.logger.info("SCG token created", ["tokenId": .int(created.id)])
        return AdminJSON.response(.created, AdminJSON.object([
            "id": .number(String(created.id)), "token": .string(token), "label": .string(label),
            "createdAt": AdminJSON.time(created.createdAt.milliseconds),
        ]))
    }

    private func revoke(_ request: Request) async throws(AdminFailure) -> Response {
        let account = try Self.productToken(request)
        let text = request.pathParameters["id"] ?? ""
        guard let id = Int64(text), id > 0 else { throw .badRequest("the token id must be a positive number, got \(JSONText.quoted(text))") }
        guard try await admin.call("revoke an SCG token", { try await tokens.revokeSCGToken(account: account, id: id, at: admin.now()) }) else {
            throw .notFound("the account has no live SCG token \(id)")
        }
        admin.logger.info("SCG token revoked", ["tokenId": .int(id)])
        return Response(status: .noContent, body: [])
    }

    private func setSenderID(_ request: Request) async throws(AdminFailure) -> Response {
        let key = try AdminAppsEndpoint.appKey(request)
        let body = try AdminRequestBody(request.body, keys: ["senderId"])
        let senderID = try body.string("senderId")
        if let senderID, !SenderIDRule.isValid(senderID) {
            throw .badRequest("\"senderId\" must be 1-\(SenderIDRule.maximumLength) printable characters without @, : or spaces")
        }
        switch try await admin.call("set the sender id", { try await senderIDs.changeSenderID(app: key, to: senderID) }) {
        case .set: break
        case .unknownApp: throw AdminAppsEndpoint.unknownApp(key)
        case .takenBy(let other): throw .conflict("the account's app \(other.text) already has sender id \(JSONText.quoted(senderID ?? ""))")
        }
        admin.logger.info("sender id set", ["appKey": .string(key.text)])
        return AdminJSON.response(.ok, AdminJSON.app(try await admin.details(key)))
    }

    private static func productToken(_ request: Request) throws(AdminFailure) -> ProductToken {
        let text = request.pathParameters["productToken"] ?? ""
        guard let token = ProductToken(text) else { throw .badRequest("the product token must be a GUID, got \(JSONText.quoted(text))") }
        return token
    }

    private static func unknownAccount(_ token: ProductToken) -> AdminFailure { .notFound("no account has product token \(token.text)") }
}
