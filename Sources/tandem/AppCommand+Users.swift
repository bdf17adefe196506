import TandemAPI
import TandemCore
import TandemEngine
import TandemStore

/// `tandem app user add|list|revoke`: cospace's app users and their bearer tokens.
///
/// Guaranteed: a user's bearer token is printed only by `user add`, once; only its SHA-256 is stored.
extension AppCommand {
    static let userUsage = """
        tandem app user add APP_KEY [USER_ID] [--config PATH]
               tandem app user list APP_KEY [--config PATH]
               tandem app user revoke APP_KEY USER_ID [--config PATH]
        """

    func user(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config"], usage: Self.userUsage)
        guard parsed.positional.count >= 2 else { throw CommandFailure(.usage, "usage: \(Self.userUsage)") }
        switch parsed.positional[1] {
        case "add": try await addUser(parsed)
        case "list": try await listUsers(parsed)
        case "revoke": try await revokeUser(parsed)
        default: throw CommandFailure(.usage, "unknown user subcommand \"\(parsed.positional[1])\"\nusage: \(Self.userUsage)")
        }
    }

    private func addUser(_ parsed: Arguments) async throws(CommandFailure) {
        let words = parsed.positional
        guard words.count == 3 || words.count == 4 else { throw CommandFailure(.usage, "usage: \(Self.userUsage)") }
        let key = try Self.appKey(words[2])
        var generator = SystemRandomNumberGenerator()
        let user = try words.count == 4 ? Self.userID(words[3]) : AppUserID(GUID.random(using: &generator))
        let (token, hash) = AppUserToken.generate()
        let addition = try await withStore(parsed) { store throws(CommandFailure) -> AppUserAddition in
            do {
                return try await store.addUser(app: key, user: user, tokenHash: hash, at: Self.now())
            } catch {
                throw CommandFailure(.failure, "cannot add the user: \(error)")
            }
        }
        switch addition {
        case .added:
            ProcessIO.writeOutput("""
                app key:      \(key.text)
                user id:      \(user.text)
                bearer token: \(token)

                The user's app sends it as `Authorization: Bearer <token>` to /api/push. It is shown only now.

                """)
        case .exists:
            throw CommandFailure(.dataError, "user \(user.text) of app \(key.text) exists (revoke it first for a new token)")
        case .unknownApp:
            throw Self.unknownApp(key)
        }
    }

    private func listUsers(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app user list APP_KEY [--config PATH]"
        let key = try Self.appKey(try parsed.expectPositional(3, usage: usage)[2])
        let users = try await withStore(parsed) { store throws(CommandFailure) -> [AppUser]? in
            do {
                return try await store.users(app: key)
            } catch {
                throw CommandFailure(.failure, "cannot read the users: \(error)")
            }
        }
        guard let users else { throw Self.unknownApp(key) }
        guard !users.isEmpty else {
            ProcessIO.writeOutput("no users yet: add one with `tandem app user add \(key.text)`\n")
            return
        }
        let lines = ["USER ID                               CREATED                   REVOKED"] + users.map { user in
            user.id.text + "  " + Self.padded(ISO8601.format(user.createdAt), to: 24) + "  "
                + (user.revokedAt.map { ISO8601.format($0) } ?? "-")
        }
        ProcessIO.writeOutput(lines.joined(separator: "\n") + "\n")
    }

    private func revokeUser(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app user revoke APP_KEY USER_ID [--config PATH]"
        let words = try parsed.expectPositional(4, usage: usage)
        let key = try Self.appKey(words[2])
        let user = try Self.userID(words[3])
        let outcome = try await withStore(parsed) { store throws(CommandFailure) -> AppUserRevocation in
            do {
                return try await store.revokeUser(app: key, user: user, at: Self.now())
            } catch {
                throw CommandFailure(.failure, "cannot revoke the user: \(error)")
            }
        }
        switch outcome {
        case .revoked: ProcessIO.writeOutput("user \(user.text) revoked: its token no longer works and its push tokens are deleted\n")
        case .unknownUser: throw CommandFailure(.dataError, "no active user \(user.text) of app \(key.text)")
        case .unknownApp: throw Self.unknownApp(key)
        }
    }

    private static func userID(_ text: String) throws(CommandFailure) -> AppUserID {
        guard let id = AppUserID(text) else {
            throw CommandFailure(.usage, "USER_ID must be a UUID like 9aed5e94-3803-11e3-8475-0024e8f90cc0, got \"\(text)\"")
        }
        return id
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func now() -> Timestamp {
        SystemClock().now()
    }
}
