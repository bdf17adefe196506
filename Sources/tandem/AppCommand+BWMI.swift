import TandemCore
import TandemStore

/// `tandem app bwmi`: an app's TIBCO BWMI settings (``BWMIAppSettings``).
extension AppCommand {
    static let bwmiUsage = "tandem app bwmi APP_KEY [--trust-phones on|off] [--static-key KEY | --no-static-key] [--config PATH]"

    /// Changes what the options name (the others keep their values) and prints the settings.
    func bwmi(_ parsed: Arguments) async throws(CommandFailure) {
        try parsed.expectOnly(["config", "trust-phones", "static-key", "no-static-key"], usage: Self.bwmiUsage)
        let key = try Self.appKey(try parsed.expectPositional(2, usage: Self.bwmiUsage)[1])
        var trust: Bool?
        switch parsed.option("trust-phones") {
        case nil: break
        case "on"?: trust = true
        case "off"?: trust = false
        case let other?: throw CommandFailure(.usage, "--trust-phones must be on or off, got \"\(other)\"")
        }
        let staticKey = parsed.option("static-key")
        if let staticKey, !Self.isValidStaticKey(staticKey) {
            throw CommandFailure(.usage, "--static-key must be 16 to 200 printable ASCII characters without spaces")
        }
        if staticKey != nil && parsed.flag("no-static-key") {
            throw CommandFailure(.usage, "give --static-key or --no-static-key, not both")
        }
        let removeKey = parsed.flag("no-static-key")
        let settings = try await withStore(parsed) { store throws(CommandFailure) -> BWMIAppSettings in
            let found: BWMIAppSettings?
            do {
                if try await store.app(key: key) == nil {
                    found = nil
                } else {
                    var settings = try await store.bwmiSettings(app: key)
                    if let trust { settings.trustPhones = trust }
                    if let staticKey { settings.staticKey = staticKey }
                    if removeKey { settings.staticKey = nil }
                    if trust != nil || staticKey != nil || removeKey { _ = try await store.setBWMISettings(app: key, settings) }
                    found = settings
                }
            } catch {
                throw CommandFailure(.failure, "cannot set the BWMI settings: \(error)")
            }
            guard let found else { throw Self.unknownApp(key) }
            return found
        }
        ProcessIO.writeOutput("""
            app key:       \(key.text)
            base path:     /bwmi/\(key.text)
            trust phones:  \(settings.trustPhones ? "on" : "off")
            static key:    \(settings.staticKey == nil ? "none" : "required (X-BWMI-Key)")

            """)
    }

    /// What an administrator may set as an app's `X-BWMI-Key`.
    static func isValidStaticKey(_ key: String) -> Bool {
        (16...200).contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
