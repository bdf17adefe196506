import TandemProviders

/// `tandem kannel check-smsbox FILE`: whether Kannel's smsbox retries a DLR callback made while Tandem is down.
struct KannelCommand {
    static let usage = """
        usage: tandem kannel check-smsbox FILE

        check-smsbox  Reads the Kannel configuration FILE (and the files it includes) and says, per smsbox group,
                      whether smsbox retries a failed DLR callback: http-request-retry above 0 and
                      http-queue-delay not 0 (see the README's Kannel section). Exit status 0 when every group
                      does, 78 when one does not or there is none, 1 when FILE cannot be read. Runs without a
                      Tandem configuration, e.g. on the Kannel host; `tandem serve` makes the same check at
                      start-up when providers.sms.kannel.smsboxConfig names the file.

        """

    let arguments: [String]

    func run() throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: [], usage: Self.usage) else { return }
        guard parsed.positional.first == "check-smsbox" else {
            throw CommandFailure(.usage, parsed.positional.isEmpty ? Self.usage : "unknown subcommand \"\(parsed.positional[0])\"\n\(Self.usage)")
        }
        let path = try parsed.expectPositional(2, usage: "tandem kannel check-smsbox FILE")[1]
        let (groups, unreadable) = KannelSmsboxRetry.load(path: path)
        if unreadable.contains(path) { throw CommandFailure(.failure, "\(path): cannot be read") }
        var lines = unreadable.map { "\($0): cannot be read (included; not checked)\n" }
        var fine = !groups.isEmpty && unreadable.isEmpty
        if groups.isEmpty { lines.append("\(path): no smsbox group\n") }
        for group in groups {
            let name = group.smsboxID.map { "smsbox \"\($0)\"" } ?? "smsbox"
            if let problem = group.problem {
                fine = false
                lines.append("\(path): \(name): \(problem)\n")
            } else {
                let delay = group.queueDelay ?? KannelSmsboxRetry.defaultQueueDelay
                lines.append("\(path): \(name): retries a failed DLR callback \(group.requestRetry ?? 0) times, \(delay) s apart"
                             + " (a restart of up to about \(group.retryWindow) s loses no DLR)\n")
            }
        }
        ProcessIO.writeOutput(lines.joined())
        if !fine { throw CommandFailure(.configuration, "\(path): Kannel may drop DLRs made while Tandem is down") }
    }
}
