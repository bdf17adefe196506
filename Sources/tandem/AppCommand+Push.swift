import TandemCore
import TandemStore

/// `tandem app set-apns` and `tandem app set-fcm`: push credentials as references (paths, a variable name);
/// key files are checked to exist, never read or printed.
extension AppCommand {
    static let setAPNsUsage = "tandem app set-apns APP_KEY (--key-file PATH | --key-env VARIABLE) --key-id KEY_ID "
        + "--team-id TEAM_ID --topic BUNDLE_ID [--sandbox] [--config PATH]"
    static let setFCMUsage = "tandem app set-fcm APP_KEY --service-account PATH [--config PATH]"

    func setAPNs(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config", "key-file", "key-env", "key-id", "team-id", "topic", "sandbox"], usage: Self.setAPNsUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.setAPNsUsage)[1])
        let source: APNsKeySource
        switch (parsed.option("key-file"), parsed.option("key-env")) {
        case (let path?, nil): source = .file(KeyFiles.absolute(path))
        case (nil, let name?): source = .environment(name)
        case (_?, _?): throw CommandFailure(.usage, "give either --key-file or --key-env, not both")
        case (nil, nil): throw CommandFailure(.usage, "--key-file PATH or --key-env VARIABLE is required\nusage: \(Self.setAPNsUsage)")
        }
        let credentials = APNsCredentials(keySource: source, keyID: try Self.required("key-id", parsed),
                                          teamID: try Self.required("team-id", parsed), topic: try Self.required("topic", parsed),
                                          sandbox: parsed.flag("sandbox"))
        do {
            try credentials.validate()
        } catch {
            throw CommandFailure(.usage, error.description)
        }
        if case .file(let path) = source { try Self.expectFile(path, what: "the APNs key file (.p8)") }
        if case .environment(let name) = source, environment[name]?.isEmpty ?? true {
            ProcessIO.writeError("tandem: warning: the environment variable \(name) is not set here; the server reads the "
                + "key's PEM from it in its own environment when it signs this app's pushes, and they fail while it is "
                + "unset (for systemd: Environment= or EnvironmentFile= in its unit)\n")
        }
        try await update(parsed, key: key, action: "set the APNs credentials") { store, key in
            try await store.setAPNsCredentials(key: key, credentials)
        }
    }

    func setFCM(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config", "service-account"], usage: Self.setFCMUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.setFCMUsage)[1])
        let credentials = FCMCredentials(serviceAccountPath: KeyFiles.absolute(try Self.required("service-account", parsed)))
        do {
            try credentials.validate()
        } catch {
            throw CommandFailure(.usage, error.description)
        }
        try Self.expectFile(credentials.serviceAccountPath, what: "the FCM service-account file")
        try await update(parsed, key: key, action: "set the FCM credentials") { store, key in
            try await store.setFCMCredentials(key: key, credentials)
        }
    }

    private static func required(_ option: String, _ parsed: Arguments) throws(CommandFailure) -> String {
        guard let value = parsed.option(option) else {
            throw CommandFailure(.usage, "--\(option) is required")
        }
        return value
    }

    /// EX_DATAERR when `path` is not a regular file: the credentials would name something that is not there.
    private static func expectFile(_ path: String, what: String) throws(CommandFailure) {
        guard KeyFiles.isRegularFile(path) else {
            throw CommandFailure(.dataError, "no file at \(path): \(what) must exist on this machine")
        }
    }
}
