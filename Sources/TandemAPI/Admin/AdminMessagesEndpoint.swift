import TandemCore
import TandemHTTP

/// `GET /admin/messages?id=…|reference=…|msisdn=…`: an operator's view of messages across every account,
/// with each recipient's event timeline and the policy's deadlines (what the dashboard's message page draws).
///
/// Exactly one of `id` (a message GUID), `reference` (1 to 128 characters) or `msisdn` (`+` or `00`, 8–15
/// digits) is required; anything else is 400. The answer is
/// `{"query":{"by","value"},"messages":[{"id","account","reference","from","appMessageType","appKey",
/// "fallbackFor","createdAt","recipientCount","recipients":[{"to","updateId","status","final","resolution",
/// "channel","fallback","smsCause","rejectReason","queued","updatedAt","events":[{"at","ms","event","detail"}],
/// "deadlines":[{"timer","at","ms","armed"}]}]}]}`, newest message first, at most ``limit`` messages and
/// ``Store``'s recipient limit per message (`recipientCount` counts them all). No match is 200 with an empty
/// list (a search, not a resource).
///
/// Guaranteed: numbers are shown masked (`+3161****678`), as the logs show them, including the one searched
/// for; message bodies are never shown. The admin or the dashboard token, as ``AdminGate`` checks them;
/// `Cache-Control: no-store`.
/// Not guaranteed: a consistent view across messages beyond the one read snapshot the search takes.
public struct AdminMessagesEndpoint: Sendable {
    /// The most messages one search returns.
    public static let limit = 20

    private let search: any MessageSearch
    private let gate: AdminGate
    private let logger: Logger

    /// - Parameters:
    ///   - adminToken: the admin API's token.
    ///   - dashboardToken: the dashboard's read-only token (`dashboard.token`), accepted too.
    ///   With neither (nil or empty) the route is off: 403.
    public init(search: any MessageSearch, adminToken: String?, dashboardToken: String? = nil, logger: Logger = .discarding) {
        self.search = search
        self.logger = logger.with(["component": "admin"])
        self.gate = AdminGate(tokens: [adminToken, dashboardToken], logger: self.logger)
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/admin/messages", .async { request in
            if let refusal = self.gate.refusal(request) { return refusal }
            do throws(AdminFailure) {
                return try await self.respond(to: request)
            } catch {
                return error.response
            }
        })
    }

    func respond(to request: Request) async throws(AdminFailure) -> Response {
        let (query, shown) = try Self.query(request.query)
        let found: [FoundMessage]
        do {
            found = try await search.search(query, limit: Self.limit)
        } catch {
            logger.error("admin store failure", ["action": .string("search messages"), "error": .string("\(error)")])
            throw .storeFailed
        }
        let by: String = switch query {
        case .id: "id"
        case .reference: "reference"
        case .msisdn: "msisdn"
        }
        return AdminJSON.response(.ok, AdminJSON.object([
            "query": AdminJSON.object(["by": .string(by), "value": .string(shown)]),
            "messages": .array(found.map(Self.message)),
        ]))
    }

    /// The one search parameter, parsed; and how the answer shows it (a number masked).
    static func query(_ parameters: QueryParameters) throws(AdminFailure) -> (MessageQuery, String) {
        let known = ["id", "reference", "msisdn"]
        if let unknown = parameters.first(where: { !known.contains($0.name) }) {
            throw .badRequest("unknown parameter \(JSONText.quoted(unknown.name)): search by id, reference or msisdn")
        }
        guard parameters.count == 1, let (name, value) = parameters.first(where: { _ in true }) else {
            throw .badRequest("give exactly one of id, reference or msisdn")
        }
        switch name {
        case "id":
            guard let id = GUID(value) else { throw .badRequest("\"id\" must be a message id (a GUID), got \(JSONText.quoted(value))") }
            return (.id(id), id.text)
        case "reference":
            guard (1...128).contains(value.count) else { throw .badRequest("\"reference\" must be 1 to 128 characters") }
            return (.reference(value), value)
        default:
            guard let msisdn = MSISDN(value) else {
                throw .badRequest("\"msisdn\" must be a number in international form (+ or 00, 8 to 15 digits)")
            }
            return (.msisdn(msisdn), msisdn.masked)
        }
    }

    private static func message(_ found: FoundMessage) -> JSONValue {
        let message = found.message
        let queued = message.queued.map { msisdn in
            AdminJSON.object(["to": .string(msisdn.masked), "updateId": .null, "status": .string(DeliveryStatus.accepted.wireName),
                              "final": .bool(false), "resolution": .null, "channel": .null, "fallback": .bool(false),
                              "smsCause": .null, "rejectReason": .null, "queued": .bool(true),
                              "updatedAt": AdminJSON.time(message.createdAt.milliseconds), "events": .array([]),
                              "deadlines": .array([])])
        }
        return AdminJSON.object([
            "id": .string(message.id.text), "account": .string(found.accountName), "reference": optional(message.reference),
            "from": .string(message.sender), "appMessageType": .string(message.messageType.wireName),
            "appKey": optional(message.appKey?.text), "fallbackFor": optional(message.fallbackFor?.text),
            "createdAt": AdminJSON.time(message.createdAt.milliseconds), "recipientCount": .number(String(found.recipientCount)),
            "recipients": .array(message.recipients.map(recipient) + queued),
        ])
    }

    private static func recipient(_ recipient: RecipientView) -> JSONValue {
        let delivery = recipient.delivery
        let events = recipient.events.map { event in
            AdminJSON.object(["at": AdminJSON.time(event.at.milliseconds), "ms": .number(String(event.at.milliseconds)),
                              "event": .string(event.kind), "detail": .string(event.detail)])
        }
        let deadlines = recipient.deadlines.map { deadline in
            AdminJSON.object(["timer": .string(deadline.kind.rawValue), "at": AdminJSON.time(deadline.at.milliseconds),
                              "ms": .number(String(deadline.at.milliseconds)), "armed": .bool(deadline.armed)])
        }
        return AdminJSON.object([
            "to": .string(recipient.recipient.description), "updateId": .number(String(recipient.key.rawValue)),
            "status": .string(delivery.status.wireName), "final": .bool(delivery.isFinal),
            "resolution": optional(delivery.resolution?.rawValue), "channel": optional(delivery.resolution?.channel?.wireName),
            "fallback": .bool(delivery.smsCause?.isFallback == true), "smsCause": optional(delivery.smsCause?.rawValue),
            "rejectReason": optional(delivery.rejectReason?.rawValue), "queued": .bool(false),
            "updatedAt": AdminJSON.time(recipient.updatedAt.milliseconds), "events": .array(events),
            "deadlines": .array(deadlines),
        ])
    }

    private static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
}
