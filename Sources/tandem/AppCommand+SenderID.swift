import TandemCore
import TandemStore

extension AppCommand {
    /// `tandem app set-sender-id APP_KEY SENDER_ID|none`: exits 65 for an unknown app or a sender id another
    /// app of the account has.
    func setSenderID(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app set-sender-id APP_KEY SENDER_ID|none [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        let words = try parsed.expectPositional(3, usage: usage)
        let key = try Self.appKey(words[1])
        let senderID: String? = words[2] == "none" ? nil : words[2]
        if let senderID, !SenderIDRule.isValid(senderID) {
            throw CommandFailure(.usage, "SENDER_ID must be 1-\(SenderIDRule.maximumLength) printable characters without @, : or spaces")
        }
        let details = try await withStore(parsed) { store throws(CommandFailure) -> AppDetails in
            let change: SenderIDChange
            do {
                change = try await store.changeSenderID(app: key, to: senderID)
            } catch {
                throw CommandFailure(.failure, "cannot set the sender id: \(error)")
            }
            switch change {
            case .set: return try await Self.details(key, in: store)
            case .unknownApp: throw Self.unknownApp(key)
            case .takenBy(let other): throw CommandFailure(.dataError, "the account's app \(other.text) already has sender id \(senderID ?? "")")
            }
        }
        ProcessIO.writeOutput(AppText.details(details))
    }
}
