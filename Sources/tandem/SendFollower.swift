import TandemCore
import TandemProviders

/// `tandem send --follow`: polls `GET /v1.0/message/{id}` and prints each recipient's new timeline events as
/// they appear, then each recipient's outcome once all are final.
///
/// Guaranteed: every event is printed once, in the timeline's order per recipient. Not guaranteed: that events
/// of different recipients are printed in time order with each other (each poll prints per recipient), nor
/// that an event is printed the moment it happens — polls are `interval` apart.
struct SendFollower {
    /// The status lookup's view (the fields the follower reads).
    struct View: Decodable {
        struct Recipient: Decodable {
            struct Event: Decodable {
                var at: String
                var event: String
                var detail: String
            }

            var to: String
            var updateId: Int64?
            var status: String
            var final: Bool
            var channel: String?
            var fallback: Bool
            var smsCause: String?
            var resolution: String?
            var events: [Event]
        }

        var recipients: [Recipient]
    }

    let server: ServerClient
    let token: ProductToken
    let messageID: String
    let timeout: Duration
    var interval: Duration = .milliseconds(200)

    /// Follows until every recipient is final (true when each ended Delivered or Read) or `timeout` passes
    /// (false, after saying so on stderr).
    func run() async throws(CommandFailure) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var printed: [String: Int] = [:]
        while true {
            let response = try await server.send(.get, "/v1.0/message/\(messageID)",
                                                 headers: [HTTPClientHeader("X-CM-PRODUCTTOKEN", token.text)])
            guard response.status == 200 else {
                throw CommandFailure(.failure, "GET /v1.0/message/\(messageID) answered HTTP \(response.status)")
            }
            let view = try ServerClient.decode(View.self, response, what: "GET /v1.0/message/\(messageID)")
            var output = ""
            for recipient in view.recipients {
                let seen = printed[recipient.to] ?? 0
                for event in recipient.events.dropFirst(seen) {
                    output += "\(Self.clockTime(event.at))  \(recipient.to)  \(event.event)\(event.detail.isEmpty ? "" : "  \(event.detail)")\n"
                }
                printed[recipient.to] = recipient.events.count
            }
            if !output.isEmpty { ProcessIO.writeOutput(output) }
            if !view.recipients.isEmpty && view.recipients.allSatisfy(\.final) {
                var summary = ""
                var succeeded = true
                for recipient in view.recipients {
                    summary += "\(recipient.to): \(Self.outcome(recipient))\n"
                    if recipient.status != "Delivered" && recipient.status != "Read" { succeeded = false }
                }
                ProcessIO.writeOutput(summary)
                return succeeded
            }
            if clock.now >= deadline {
                let open = view.recipients.filter { !$0.final }.map(\.to).joined(separator: ", ")
                ProcessIO.writeError("tandem: not final after \(DurationText.format(timeout)): \(open)\n")
                return false
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// `Delivered by SMS (fallback: noRead, update 12)`.
    static func outcome(_ recipient: View.Recipient) -> String {
        var text = recipient.status
        if let channel = recipient.channel { text += " by \(channel)" }
        var notes: [String] = []
        if recipient.fallback, let cause = recipient.smsCause { notes.append("fallback: \(cause)") }
        if let resolution = recipient.resolution, recipient.status != "Delivered" && recipient.status != "Read" {
            notes.append(resolution)
        }
        if let update = recipient.updateId { notes.append("updateId \(update)") }
        return notes.isEmpty ? text : "\(text) (\(notes.joined(separator: ", ")))"
    }

    /// `10:15:00.059` of `2026-11-21T10:15:00.059Z`; the text as it came when it has another shape.
    static func clockTime(_ iso: String) -> String {
        guard let t = iso.firstIndex(of: "T") else { return iso }
        let time = iso[iso.index(after: t)...]
        return String(time.hasSuffix("Z") ? time.dropLast() : time)
    }
}
