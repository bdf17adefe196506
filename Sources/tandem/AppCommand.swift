import TandemCore
import TandemEngine
import TandemStore

/// `tandem app …`: the app manager on the command line — create, list, show, rotate-secret, set-apns, set-fcm,
/// set-type, set-sms-protection, sms-blocks and delete.
///
/// Guaranteed: the app secret is printed only by `create` and `rotate-secret` (once, when it is made);
/// `list`, `show` and the `set-*` commands never print it, nor the contents of any key file (they show
/// paths and variable names only). Unknown app keys and missing key files exit 65 (EX_DATAERR).
/// Not guaranteed: that a running server already uses a rotated secret or new credentials for requests in
/// flight.
struct AppCommand {
    static let usage = """
        usage: tandem app create NAME --account PRODUCT_TOKEN [--type Default|OTP|Critical] [--config PATH]
               tandem app list [--config PATH]
               tandem app show APP_KEY [--config PATH]
               tandem app rotate-secret APP_KEY [--config PATH]
               tandem app set-apns APP_KEY (--key-file PATH | --key-env VARIABLE) --key-id KEY_ID --team-id TEAM_ID
                                   --topic BUNDLE_ID [--sandbox] [--config PATH]
               tandem app set-fcm APP_KEY --service-account PATH [--config PATH]
               tandem app set-type APP_KEY Default|OTP|Critical [--config PATH]
               tandem app set-sender-id APP_KEY SENDER_ID|none [--config PATH]
               tandem app set-sms-protection APP_KEY [--mode enforce|monitor] [--allow REGIONS | --deny REGIONS]
                                   [--pin-length 4..10] [--config PATH]
               tandem app sms-blocks APP_KEY [--config PATH]
               tandem app bwmi APP_KEY [--trust-phones on|off] [--static-key KEY | --no-static-key] [--config PATH]
               tandem app delete APP_KEY [--config PATH]
               tandem app user add APP_KEY [USER_ID] [--config PATH]
               tandem app user list|revoke APP_KEY [USER_ID] [--config PATH]
               tandem app set-mymsp APP_KEY --user NAME --password-env VARIABLE [--event-url URL] [--config PATH]
               tandem app mymsp-group APP_KEY NAME --recipients ID,ID,… [--short-name SHORT] [--config PATH]
               tandem app mymsp-ungroup APP_KEY NAME [--config PATH]
               tandem app mymsp-groups APP_KEY [--config PATH]

        create         Creates an app owned by the account with PRODUCT_TOKEN and prints its app key (senders
                       put it in `appKey`; SDKs sign with it as `kid`) and app secret (SDKs sign requests with
                       it). --type is the appMessageType used when a message names none (default: Default).
                       The secret is shown once.
        list           Lists every app: key, name, account, default type and which push credentials are set.
        show           Shows one app: its settings, push credentials (paths and names, never key contents) and
                       device registrations by status. The secret is never shown.
        rotate-secret  Replaces the app secret and prints the new one, once; the old one stops working.
        set-apns       Sets the APNs token-authentication credentials: the .p8 key as a file on this machine
                       (--key-file; a relative path is made absolute) or as the name of an environment variable
                       of the server holding its PEM text (--key-env); the 10-character key ID and team ID; the
                       topic (the app's bundle ID); --sandbox for the development environment.
        set-fcm        Sets the FCM v1 credentials: the Google service-account JSON file on this machine.
        set-type       Sets the appMessageType used when a message names none.
        set-sender-id  Sets the other name the app is addressed by in the SCG API (`psh:apn@SENDER_ID@<token>`,
                       `from`): 1-64 printable characters without `@`, `:` or spaces, unique among the
                       account's apps; `none` removes it. cospace's GET /api/push tells clients it as the FCM
                       `sender_id` (set the Firebase project number there).
        set-sms-protection
                       Sets how the app's PIN SMS are protected against SMS pumping (the whole setting; an
                       option left out is its default): --allow NL,BE sends PINs only to those regions
                       (ISO codes; 001 for non-geographic numbers, ZZ for unknown calling codes), --deny CU,001
                       to all but those; --mode monitor sends anyway and logs what enforce (the default) would
                       refuse; --pin-length sets the app's PIN digits (default: deviceAPI.verification.pinLength).
        sms-blocks     Lists the app's number prefixes blocked for low PIN conversion. Lift one on the running
                       server: DELETE /admin/apps/{appKey}/sms-blocks/{prefix}.
        bwmi           Shows or changes the app's TIBCO BWMI settings (base path /bwmi/APP_KEY): --trust-phones
                       on makes its BWMI devices verified installs of the phone they claim (MSISDN messages
                       for the app push to them); --static-key requires that key in X-BWMI-Key on its device
                       endpoints (16 to 200 characters), --no-static-key removes it. Defaults: off, none.
        delete         Deletes an app that no message names, with its device registrations, myMSP user and SMS
                       prefix blocks. An app that messages name is kept for their history and the command fails:
                       rotate its secret to lock its SDKs out, or disable its account.
        user           cospace's app users: `add` creates one (USER_ID a UUID, random when left out) and prints
                       its bearer token for /api/push, once; `list` shows them; `revoke` stops the token and
                       deletes the user's push tokens.
        set-mymsp      Binds a myMSP user (the `user` of /external/notifications/…) to the app, one per app; the
                       password (for `send` and the event poll) is read from the environment variable and stored
                       hashed; --event-url receives each event as a form POST (else events are polled).
        mymsp-group    Creates or replaces a recipient group (members: recipient ids of the app's user).
        mymsp-ungroup  Deletes a recipient group.
        mymsp-groups   Lists the recipient groups.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(
            arguments, known: ["config", "account", "type", "key-file", "key-env", "key-id", "team-id", "topic", "service-account",
                               "mode", "allow", "deny", "pin-length", "trust-phones", "static-key", "user", "password-env", "event-url",
                               "recipients", "short-name"],
            flags: ["sandbox", "no-static-key"], usage: Self.usage) else { return }
        guard let subcommand = parsed.positional.first else { throw CommandFailure(.usage, Self.usage) }
        switch subcommand {
        case "create": try await create(parsed)
        case "list": try await list(parsed)
        case "show": try await show(parsed)
        case "rotate-secret": try await rotateSecret(parsed)
        case "set-apns": try await setAPNs(parsed)
        case "set-fcm": try await setFCM(parsed)
        case "set-type": try await setType(parsed)
        case "set-sender-id": try await setSenderID(parsed)
        case "set-sms-protection": try await setSMSProtection(parsed)
        case "sms-blocks": try await smsBlocks(parsed)
        case "bwmi": try await bwmi(parsed)
        case "delete": try await delete(parsed)
        case "user": try await user(parsed)
        case "set-mymsp": try await setMyMSP(parsed)
        case "mymsp-group": try await setMyMSPGroup(parsed)
        case "mymsp-ungroup": try await deleteMyMSPGroup(parsed)
        case "mymsp-groups": try await listMyMSPGroups(parsed)
        default: throw CommandFailure(.usage, "unknown subcommand \"\(subcommand)\"\n\(Self.usage)")
        }
    }

    private func create(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app create NAME --account PRODUCT_TOKEN [--type Default|OTP|Critical] [--config PATH]"
        try parsed.expectOnly(["config", "account", "type"], usage: usage)
        let words = try parsed.expectPositional(2, usage: usage)
        guard let tokenText = parsed.option("account") else {
            throw CommandFailure(.usage, "--account PRODUCT_TOKEN is required")
        }
        guard let token = ProductToken(tokenText) else {
            throw CommandFailure(.usage, "--account must be a product token like 00000000-0000-0000-0000-000000000000")
        }
        let type = try parsed.option("type").map { text throws(CommandFailure) in try Self.messageType(text, option: "--type") }
            ?? .default

        let (app, account) = try await withStore(parsed) { store throws(CommandFailure) -> (App, Account) in
            do throws(Administration.Failure) {
                return try await Administration(registry: store, now: ProcessIO.now)
                    .createApp(name: words[1], account: token, defaultMessageType: type)
            } catch {
                throw CommandFailure(error)
            }
        }
        ProcessIO.writeOutput("""
            app:          \(app.name) (account \(account.name))
            default type: \(app.defaultMessageType.wireName)
            app key:      \(app.key.text)
            app secret:   \(app.secret.text)

            """)
    }

    private func list(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config"], usage: "tandem app list [--config PATH]")
        _ = try parsed.expectPositional(1, usage: "tandem app list [--config PATH]")
        let apps = try await withStore(parsed) { store throws(CommandFailure) -> [AppSummary] in
            do {
                return try await store.apps()
            } catch {
                throw CommandFailure(.failure, "cannot read apps: \(error)")
            }
        }
        ProcessIO.writeOutput(AppText.table(apps))
    }

    private func show(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app show APP_KEY [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: usage)[1])
        let (details, cospace, mymsp) = try await withStore(parsed) { store throws(CommandFailure) in
            let details = try await Self.details(key, in: store)
            do {
                return await (details, try store.cospaceCounts(app: key), await Self.myMSPText(key, in: store))
            } catch {
                throw CommandFailure(.failure, "cannot read the app's cospace users: \(error)")
            }
        }
        ProcessIO.writeOutput(AppText.details(details, cospace: cospace) + mymsp)
    }

    private func rotateSecret(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app rotate-secret APP_KEY [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: usage)[1])
        var generator = SystemRandomNumberGenerator()
        let secret = AppSecret.random(using: &generator)
        let app = try await withStore(parsed) { store throws(CommandFailure) -> App in
            let found: Bool
            do {
                found = try await store.rotateSecret(key: key, to: secret)
            } catch {
                throw CommandFailure(.failure, "cannot rotate the secret: \(error)")
            }
            guard found else { throw Self.unknownApp(key) }
            return try await Self.details(key, in: store).app
        }
        ProcessIO.writeOutput("""
            app:          \(app.name)
            app key:      \(app.key.text)
            app secret:   \(secret.text)

            A running server refuses the old secret within 5 seconds. The new one is shown only now.

            """)
    }

    private func setType(_ parsed: Arguments) async throws(CommandFailure) {
        let usage = "tandem app set-type APP_KEY Default|OTP|Critical [--config PATH]"
        try parsed.expectOnly(["config"], usage: usage)
        let words = try parsed.expectPositional(3, usage: usage)
        let key = try Self.appKey(words[1])
        let type = try Self.messageType(words[2], option: "the type")
        try await update(parsed, key: key, action: "set the default type") { store, key in
            try await store.setDefaultMessageType(key: key, type)
        }
    }

    // MARK: - Shared

    /// Runs `change` and, when the app exists, prints the app as `show` does.
    func update(_ parsed: Arguments, key: AppKey, action: String,
                _ change: (any TandemDatabase, AppKey) async throws -> Bool) async throws(CommandFailure) {
        let details = try await withStore(parsed) { store throws(CommandFailure) -> AppDetails in
            let found: Bool
            do {
                found = try await change(store, key)
            } catch {
                throw CommandFailure(.failure, "cannot \(action): \(error)")
            }
            guard found else { throw Self.unknownApp(key) }
            return try await Self.details(key, in: store)
        }
        ProcessIO.writeOutput(AppText.details(details))
    }

    /// Opens the store, runs `body`, and closes the store whether `body` succeeded or not.
    func withStore<T>(_ parsed: Arguments, _ body: (any TandemDatabase) async throws(CommandFailure) -> T) async throws(CommandFailure) -> T {
        try await StoreOpener.with(configPath: parsed.option("config"), environment: environment, body)
    }

    static func details(_ key: AppKey, in store: any TandemDatabase) async throws(CommandFailure) -> AppDetails {
        let details: AppDetails?
        do {
            details = try await store.appDetails(key: key)
        } catch {
            throw CommandFailure(.failure, "cannot read the app: \(error)")
        }
        guard let details else { throw unknownApp(key) }
        return details
    }

    static func appKey(_ text: String) throws(CommandFailure) -> AppKey {
        guard let key = AppKey(text) else {
            throw CommandFailure(.usage, "APP_KEY must be an app key like 00000000-0000-0000-0000-000000000000, got \"\(text)\"")
        }
        return key
    }

    static func unknownApp(_ key: AppKey) -> CommandFailure {
        CommandFailure(.dataError, "no app has key \(key.text) (`tandem app list` shows them)")
    }

    private static func messageType(_ text: String, option: String) throws(CommandFailure) -> AppMessageType {
        guard let type = AppMessageType(wireName: text) else {
            throw CommandFailure(.usage, "\(option) must be Default, OTP or Critical, got \"\(text)\"")
        }
        return type
    }
}
