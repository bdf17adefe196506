import TandemCore
import TandemProviders

/// `tandem status`: what a running server is doing, read from its `GET /admin/status` with the admin token
/// (`TANDEM_ADMIN_TOKEN`, as the server's): version, uptime, providers, deliveries in flight, pending timers,
/// the spool's queue and the SMPP binds.
struct StatusCommand {
    static let usage = """
        usage: tandem status [--url URL] [--config PATH] [--json]

        Shows a running server's version, uptime, providers, deliveries in flight, timers pending, spooled
        recipients not yet started and SMPP binds (bound of configured), from its admin API (GET /admin/status).
        The admin token comes from TANDEM_ADMIN_TOKEN, as for the server. The server is --url, else the
        listen address of the configuration (--config, TANDEM_CONFIG, Config/tandem.json; TANDEM_LISTEN applies).
        --json prints the server's answer as it came.
        Exit status 69 when no server answers, 1 when it refuses the token or its admin API is off.

        """

    struct Document: Decodable {
        struct SMPP: Decodable {
            var binds: Int
            var bindsUp: Int
        }

        var version: String
        var uptimeSeconds: Double
        var providers: String
        var deliveriesInFlight: Int
        var timersPending: Int
        var spoolRecipientsQueued: Int?
        var smpp: SMPP?
    }

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["url", "config"], flags: ["json"], usage: Self.usage) else { return }
        _ = try parsed.expectPositional(0, usage: "tandem status [--url URL] [--config PATH] [--json]")
        guard let token = environment["TANDEM_ADMIN_TOKEN"], !token.isEmpty else {
            throw CommandFailure(.usage, "set TANDEM_ADMIN_TOKEN to the server's admin token (the admin API answers the status)")
        }
        let url = try ServerClient.baseURL(option: parsed.option("url"), configPath: parsed.option("config"), environment: environment)
        let server = try ServerClient(baseURL: url)
        let response: HTTPClientResponse
        do {
            response = try await server.send(.get, "/admin/status", headers: [HTTPClientHeader("Authorization", "Bearer \(token)")])
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        switch response.status {
        case 200: break
        case 401: throw CommandFailure(.failure, "the server at \(url) refused the admin token (TANDEM_ADMIN_TOKEN differs from the server's)")
        case 403: throw CommandFailure(.failure, "the server at \(url) has its admin API off: start it with TANDEM_ADMIN_TOKEN set")
        case 404: throw CommandFailure(.failure, "the server at \(url) has no /admin/status (an older Tandem, or not Tandem)")
        default: throw CommandFailure(.failure, "the server at \(url) answered HTTP \(response.status) to GET /admin/status")
        }
        let document = try ServerClient.decode(Document.self, response, what: "GET \(url)/admin/status")
        if parsed.flag("json") {
            ProcessIO.writeOutput(String(decoding: response.body, as: UTF8.self) + "\n")
            return
        }
        let smpp = document.smpp.map { "\($0.bindsUp) of \($0.binds) bound" } ?? "none (SMS does not go over SMPP)"
        let spool = document.spoolRecipientsQueued.map { "\($0) recipient\($0 == 1 ? "" : "s") waiting" } ?? "unknown (the store could not count)"
        ProcessIO.writeOutput("""
            server:     \(url)
            version:    \(document.version)
            uptime:     \(Self.uptime(document.uptimeSeconds))
            providers:  \(document.providers)
            in flight:  \(document.deliveriesInFlight) deliver\(document.deliveriesInFlight == 1 ? "y" : "ies"), \(document.timersPending) timer\(document.timersPending == 1 ? "" : "s") pending
            spool:      \(spool)
            SMPP binds: \(smpp)

            """)
    }

    /// `3d 04h 05m 06s`, leaving out leading zero units (`12s`, `5m 00s`).
    static func uptime(_ seconds: Double) -> String {
        let total = Int(seconds)
        let (days, hours, minutes, secs) = (total / 86_400, total / 3_600 % 24, total / 60 % 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if days > 0 { return "\(days)d \(two(hours))h \(two(minutes))m \(two(secs))s" }
        if hours > 0 { return "\(hours)h \(two(minutes))m \(two(secs))s" }
        if minutes > 0 { return "\(minutes)m \(two(secs))s" }
        return "\(secs)s"
    }
}
