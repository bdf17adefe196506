import TandemCore
import TandemProviders

/// `tandem send NUMBER…`: a test message through a running server's CM gateway (`POST /v1.0/message`, the
/// intake every sender uses), printing the outcome per recipient; `--follow` then prints each recipient's
/// timeline as it happens (`GET /v1.0/message/{id}`) until every recipient is final or `--timeout` passes.
///
/// It talks HTTP because the server owns the database (it holds its lock) and is the one process that
/// delivers. The account's product token comes from `--token` or `TANDEM_PRODUCT_TOKEN`.
/// Exit status: 0 when every recipient was accepted (and, with `--follow`, ended Delivered or Read), 1 when one
/// was rejected, failed or did not end in time, 65 for a product token the server does not know, 69 when no
/// server answers.
struct SendMessageCommand {
    static let usage = """
        usage: tandem send NUMBER... [--token PRODUCT_TOKEN] [--app APP_KEY] [--type Default|OTP|Critical]
                                     [--text TEXT] [--from SENDER] [--reference REF] [--follow [--timeout 2m]]
                                     [--url URL] [--config PATH]

        Sends a test message through a running server's CM gateway (POST /v1.0/message) to each NUMBER
        (international, e.g. 0031612345678 or +31612345678) and prints the outcome per recipient.
        --token      the sending account's product token (default: $TANDEM_PRODUCT_TOKEN)
        --app        send it as that app's message: a push to the number's verified install, SMS otherwise
                     or when the push falls back (--type picks the policy; default: the app's type)
        --text       the message text (default: "Tandem test message")
        --from       the sender shown on an SMS (default: Tandem)
        --reference  your reference for the message (the status lookup also finds it by it)
        --follow     then print each recipient's timeline as it happens, until every recipient is final or
                     --timeout (default 2m) passes
        The server is --url, else the listen address of the configuration (--config, TANDEM_CONFIG,
        Config/tandem.json; TANDEM_LISTEN applies).

        """

    /// The gateway's answer: `{"details","errorCode","messages":[{"to","status","parts","messageErrorCode",
    /// "messageDetails","messageId"}]}`.
    struct Reply: Decodable {
        struct Line: Decodable {
            var to: String
            var status: String
            var parts: Int?
            var messageErrorCode: Int?
            var messageDetails: String?
            var messageId: String?
        }

        var details: String
        var errorCode: Int
        var messages: [Line]
    }

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(
            arguments, known: ["token", "app", "type", "text", "from", "reference", "timeout", "url", "config"],
            flags: ["follow"], usage: Self.usage) else { return }
        let numbers = Array(parsed.positional)
        guard !numbers.isEmpty else { throw CommandFailure(.usage, "give at least one NUMBER\n\(Self.usage)") }
        guard let tokenText = parsed.option("token") ?? environment["TANDEM_PRODUCT_TOKEN"], !tokenText.isEmpty else {
            throw CommandFailure(.usage, "give the sending account's product token with --token or TANDEM_PRODUCT_TOKEN")
        }
        guard let token = ProductToken(tokenText) else {
            throw CommandFailure(.usage, "the product token must be a GUID like 00000000-0000-0000-0000-000000000000")
        }
        let app = try parsed.option("app").map { text throws(CommandFailure) in try AppCommand.appKey(text) }
        let type = try parsed.option("type").map { text throws(CommandFailure) -> AppMessageType in
            guard let type = AppMessageType(wireName: text) else {
                throw CommandFailure(.usage, "--type must be Default, OTP or Critical, got \"\(text)\"")
            }
            return type
        }
        if type != nil && app == nil { throw CommandFailure(.usage, "--type needs --app (a message type applies to app messages)") }
        if parsed.option("timeout") != nil && !parsed.flag("follow") { throw CommandFailure(.usage, "--timeout needs --follow") }
        let timeout = try parsed.option("timeout").map { text throws(CommandFailure) -> Duration in
            guard let duration = DurationText.parse(text), duration > .zero else {
                throw CommandFailure(.usage, "--timeout must be a duration such as 90s or 5m, got \"\(text)\"")
            }
            return duration
        } ?? .seconds(120)

        let url = try ServerClient.baseURL(option: parsed.option("url"), configPath: parsed.option("config"), environment: environment)
        let server = try ServerClient(baseURL: url)
        do throws(CommandFailure) {
            let body = Self.requestBody(token: token, numbers: numbers, app: app, type: type,
                                        text: parsed.option("text") ?? "Tandem test message",
                                        from: parsed.option("from") ?? "Tandem", reference: parsed.option("reference"))
            let response = try await server.send(.post, "/v1.0/message",
                                                  headers: [HTTPClientHeader("Content-Type", "application/json")], body: Array(body.utf8))
            let reply = try Self.reply(response, url: url)
            var allAccepted = true
            for line in reply.messages {
                if line.status == "Accepted" {
                    let parts = line.parts.map { ", \($0) SMS part\($0 == 1 ? "" : "s") if sent as SMS" } ?? ""
                    ProcessIO.writeOutput("\(line.to): Accepted, message \(line.messageId ?? "?")\(parts)\n")
                } else {
                    allAccepted = false
                    ProcessIO.writeOutput("\(line.to): \(line.status) (\(line.messageErrorCode ?? 0): \(line.messageDetails ?? "no reason given"))\n")
                }
            }
            let ids = Set(reply.messages.compactMap { $0.status == "Accepted" ? $0.messageId : nil })
            if parsed.flag("follow"), let id = ids.first {
                let follower = SendFollower(server: server, token: token, messageID: id, timeout: timeout)
                let ended = try await follower.run()
                if !ended { allAccepted = false }
            }
            await server.shutdown()
            if !allAccepted { throw CommandFailure(.failure, reply.messages.isEmpty ? reply.details : "not every recipient was delivered as asked") }
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// The CM `messages` request: one `msg` for every number.
    static func requestBody(token: ProductToken, numbers: [String], app: AppKey?, type: AppMessageType?, text: String,
                            from: String, reference: String?) -> String {
        var msg = "{\"from\":" + JSONText.quoted(from)
        msg += ",\"to\":[" + numbers.map { "{\"number\":" + JSONText.quoted($0) + "}" }.joined(separator: ",") + "]"
        msg += ",\"body\":{\"type\":\"auto\",\"content\":" + JSONText.quoted(text) + "}"
        if let reference { msg += ",\"reference\":" + JSONText.quoted(reference) }
        if let app { msg += ",\"appKey\":" + JSONText.quoted(app.text) }
        if let type { msg += ",\"appMessageType\":" + JSONText.quoted(type.wireName) }
        msg += "}"
        return "{\"messages\":{\"authentication\":{\"producttoken\":" + JSONText.quoted(token.text) + "},\"msg\":[" + msg + "]}}"
    }

    /// The reply, or the whole request's failure in words (an unknown product token is exit 65).
    private static func reply(_ response: HTTPClientResponse, url: String) throws(CommandFailure) -> Reply {
        let reply = try ServerClient.decode(Reply.self, response, what: "POST \(url)/v1.0/message")
        switch reply.errorCode {
        case 0, 201: return reply
        case 101, 103:
            throw CommandFailure(.dataError, "the server refused the product token: \(reply.details) (`tandem account list` shows the accounts)")
        default:
            throw CommandFailure(.failure, "the server refused the message: \(reply.details) (CM error \(reply.errorCode))")
        }
    }
}
