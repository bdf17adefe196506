import TandemCore
import TandemStore

/// `tandem app delete APP_KEY`.
///
/// An app that no message names is deleted with its device registrations and SMS prefix blocks. An app that
/// messages name is refused (exit 1, nothing changed): those messages' status lookups, timelines and reports
/// keep it. To stop such an app, rotate its secret (its SDKs' requests are refused) and stop sending with its
/// key, or disable its account.
extension AppCommand {
    static let deleteUsage = "tandem app delete APP_KEY [--config PATH]"

    func delete(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config"], usage: Self.deleteUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.deleteUsage)[1])
        let outcome = try await withStore(parsed) { store throws(CommandFailure) -> AppDeletion in
            do {
                return try await store.deleteApp(key: key)
            } catch {
                throw CommandFailure(.failure, "cannot delete the app: \(error)")
            }
        }
        switch outcome {
        case .deleted(let registrations):
            ProcessIO.writeOutput("app \(key.text) deleted, with \(registrations) device registration\(registrations == 1 ? "" : "s")\n")
        case .inUse(let messages):
            throw CommandFailure(.failure, """
                app \(key.text) is not deleted: \(messages) message\(messages == 1 ? "" : "s") name\(messages == 1 ? "s" : "") it, \
                and their history keeps it. To stop it, rotate its secret (`tandem app rotate-secret`) so its SDKs are \
                refused, and stop sending with its key; or disable its account.
                """)
        case .notFound:
            throw Self.unknownApp(key)
        }
    }
}
