import TandemAPI
import TandemCore
import TandemStore

/// `tandem app set-mymsp`, `mymsp-group`, `mymsp-ungroup` and `mymsp-groups`: the myMSP user bound to an app and
/// its recipient groups. The password comes from an environment variable, is stored hashed, and is never printed.
extension AppCommand {
    static let setMyMSPUsage = "tandem app set-mymsp APP_KEY --user NAME --password-env VARIABLE [--event-url URL] [--config PATH]"
    static let myMSPGroupUsage = "tandem app mymsp-group APP_KEY NAME --recipients ID,ID,… [--short-name SHORT] [--config PATH]"
    static let myMSPUngroupUsage = "tandem app mymsp-ungroup APP_KEY NAME [--config PATH]"
    static let myMSPGroupsUsage = "tandem app mymsp-groups APP_KEY [--config PATH]"

    func setMyMSP(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config", "user", "password-env", "event-url"], usage: Self.setMyMSPUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.setMyMSPUsage)[1])
        guard let user = parsed.option("user"), Self.isMyMSPUserName(user) else {
            throw CommandFailure(.usage, "--user must be 1 to 100 printable ASCII characters without spaces\n\(Self.setMyMSPUsage)")
        }
        guard let variable = parsed.option("password-env") else { throw CommandFailure(.usage, Self.setMyMSPUsage) }
        guard let password = environment[variable], !password.isEmpty else {
            throw CommandFailure(.usage, "the environment variable \(variable) is not set or empty")
        }
        let eventURL = parsed.option("event-url")
        if let eventURL, !(eventURL.hasPrefix("http://") || eventURL.hasPrefix("https://")) || eventURL.contains(" ") {
            throw CommandFailure(.usage, "--event-url must be an http:// or https:// URL, got \"\(eventURL)\"")
        }
        let (salt, hash) = MyMSPPassword.hash(password)
        try await update(parsed, key: key, action: "set the myMSP user") { store, key in
            try await store.setMyMSPUser(app: key, name: user, passwordSalt: salt, passwordHash: hash, eventURL: eventURL,
                                         at: Timestamp(milliseconds: ProcessIO.unixMilliseconds()))
        }
    }

    func setMyMSPGroup(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config", "recipients", "short-name"], usage: Self.myMSPGroupUsage)
        let words = try parsed.expectPositional(3, usage: Self.myMSPGroupUsage)
        let key = try Self.appKey(words[1])
        let name = words[2].trimmingASCIISpaces()
        guard Self.isMyMSPGroupName(name), parsed.option("short-name").map(Self.isMyMSPGroupName) ?? true else {
            throw CommandFailure(.usage, "a group name must be 1 to 100 characters, not only digits, without commas")
        }
        var ids: [Int64] = []
        for item in (parsed.option("recipients") ?? "").split(separator: ",") {
            guard let id = Int64(String(item).trimmingASCIISpaces()), id > 0 else {
                throw CommandFailure(.usage, "--recipients must be recipient ids separated by commas, got \"\(item)\"")
            }
            ids.append(id)
        }
        try await withStore(parsed) { store throws(CommandFailure) in
            let user = try await Self.myMSPUser(key, in: store)
            do {
                try await store.setMyMSPGroup(user: user.id, name: name, shortName: parsed.option("short-name"), recipients: ids,
                                              at: Timestamp(milliseconds: ProcessIO.unixMilliseconds()))
            } catch {
                throw CommandFailure(.failure, "cannot set the group: \(error)")
            }
        }
        ProcessIO.writeOutput("group \(name) set\n")
    }

    func deleteMyMSPGroup(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config"], usage: Self.myMSPUngroupUsage)
        let words = try parsed.expectPositional(3, usage: Self.myMSPUngroupUsage)
        let key = try Self.appKey(words[1])
        let found = try await withStore(parsed) { store throws(CommandFailure) -> Bool in
            let user = try await Self.myMSPUser(key, in: store)
            do {
                return try await store.deleteMyMSPGroup(user: user.id, name: words[2])
            } catch {
                throw CommandFailure(.failure, "cannot delete the group: \(error)")
            }
        }
        guard found else { throw CommandFailure(.dataError, "no group \(words[2])") }
        ProcessIO.writeOutput("group \(words[2]) deleted\n")
    }

    func listMyMSPGroups(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config"], usage: Self.myMSPGroupsUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.myMSPGroupsUsage)[1])
        let groups = try await withStore(parsed) { store throws(CommandFailure) -> [MyMSPGroup] in
            let user = try await Self.myMSPUser(key, in: store)
            do {
                return try await store.mymspGroups(user: user.id)
            } catch {
                throw CommandFailure(.failure, "cannot read the groups: \(error)")
            }
        }
        ProcessIO.writeOutput(groups.isEmpty ? "no groups\n" : groups.map { group in
            "\(group.name)\(group.shortName.map { " (\($0))" } ?? ""): \(group.recipients.map(String.init).joined(separator: ","))"
        }.joined(separator: "\n") + "\n")
    }

    /// The lines `tandem app show` adds for an app with a myMSP user.
    static func myMSPText(_ key: AppKey, in store: any TandemDatabase) async -> String {
        guard let user = try? await store.mymspUser(app: key), let recipients = try? await store.mymspRecipients(app: key) else { return "" }
        let active = recipients.filter(\.active).count
        return """
            myMSP user:   \(user.name)\(user.eventURL.map { " (events to \($0))" } ?? " (events by poll only)")
            myMSP recipients: \(active) active, \(recipients.count - active) inactive

            """
    }

    static func myMSPUser(_ key: AppKey, in store: any TandemDatabase) async throws(CommandFailure) -> MyMSPUser {
        _ = try await details(key, in: store)
        let user: MyMSPUser?
        do {
            user = try await store.mymspUser(app: key)
        } catch {
            throw CommandFailure(.failure, "cannot read the myMSP user: \(error)")
        }
        guard let user else { throw CommandFailure(.dataError, "app \(key.text) has no myMSP user (`tandem app set-mymsp`)") }
        return user
    }

    static func isMyMSPUserName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 100 && name.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Not only digits (`recipients` reads digits as an id), no comma (its separator).
    static func isMyMSPGroupName(_ name: String) -> Bool {
        MyMSPCodec.isGroupName(name)
    }
}
