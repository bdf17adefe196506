import TandemCore

/// How `tandem app list` and `tandem app show` print apps.
///
/// Guaranteed: nothing here reads `app.secret` — the secret cannot appear in this output — and push
/// credentials appear only as paths and variable names.
enum AppText {
    /// One line per app under a header, columns aligned; a hint when there are none.
    static func table(_ apps: [AppSummary]) -> String {
        guard !apps.isEmpty else {
            return "no apps yet: create one with `tandem app create NAME --account PRODUCT_TOKEN`\n"
        }
        let rows = [["APP KEY", "NAME", "ACCOUNT", "TYPE", "PUSH"]] + apps.map { summary in
            [summary.app.key.text, summary.app.name, summary.accountName, summary.app.defaultMessageType.wireName,
             push(summary.pushCredentials)]
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count + 2)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }

    /// `APNs (sandbox), FCM`, `APNs`, … or `-` when none is set.
    static func push(_ credentials: AppPushCredentials) -> String {
        var parts: [String] = []
        if let apns = credentials.apns { parts.append(apns.sandbox ? "APNs (sandbox)" : "APNs") }
        if credentials.fcm != nil { parts.append("FCM") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    /// `label: value` lines: the app's settings, push credentials and registration counts.
    /// `cospace`: the app's active cospace users and their tokens (counted in `registrations` too), when known.
    static func details(_ details: AppDetails, cospace: (users: Int, tokens: Int)? = nil) -> String {
        let app = details.app
        var lines: [(String, String)] = [
            ("app", app.name),
            ("app key", app.key.text),
            ("account", details.accountName),
            ("default type", app.defaultMessageType.wireName),
            ("sender id", app.senderID ?? "none"),
            ("created", ISO8601.format(Timestamp(milliseconds: app.createdAt))),
        ]
        if let apns = details.pushCredentials.apns {
            switch apns.keySource {
            case .file(let path): lines.append(("apns key file", path))
            case .environment(let name): lines.append(("apns key env", name + " (environment variable of the server)"))
            }
            lines += [("apns key id", apns.keyID), ("apns team id", apns.teamID), ("apns topic", apns.topic),
                      ("apns environment", apns.sandbox ? "sandbox" : "production")]
        } else {
            lines.append(("apns", "not set"))
        }
        lines.append(("fcm service account", details.pushCredentials.fcm?.serviceAccountPath ?? "not set"))
        let protection = app.smsProtection
        lines.append(("pin sms countries", countries(protection.countries)))
        lines.append(("pin sms mode", protection.mode.rawValue))
        lines.append(("pin length", protection.pinLength.map(String.init) ?? "the configured length"))
        lines.append(("registrations", registrations(details)))
        if let cospace { lines.append(("cospace", "\(cospace.users) users, \(cospace.tokens) push tokens")) }
        let width = (lines.map(\.0.count).max() ?? 0) + 2
        return lines.map { label, value in
            (label + ":").padding(to: width) + value
        }.joined(separator: "\n") + "\n"
    }

    /// `3 (PinVerified 2, Unverified 1)`, statuses in declaration order, zeros left out; `0` when none.
    static func registrations(_ details: AppDetails) -> String {
        let parts = RegistrationStatus.allCases.compactMap { status -> String? in
            guard let count = details.registrations[status], count > 0 else { return nil }
            return "\(status.wireName) \(count)"
        }
        return parts.isEmpty ? "0" : "\(details.registrationCount) (\(parts.joined(separator: ", ")))"
    }

    /// `anywhere`, `only NL, BE`, or `anywhere but CU, 001`.
    static func countries(_ rule: CountryRule) -> String {
        switch rule {
        case .anywhere: "anywhere"
        case .allow(let regions): "only " + regions.sorted().map(\.text).joined(separator: ", ")
        case .deny(let regions): "anywhere but " + regions.sorted().map(\.text).joined(separator: ", ")
        }
    }
}

extension String {
    /// Spaces appended up to `width` characters (unchanged when already as wide).
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

}
