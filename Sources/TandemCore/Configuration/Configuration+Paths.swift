/// A path-valued key of the configuration file: as written, and as resolved against the file's directory.
public struct ConfiguredPath: Sendable, Hashable {
    /// What must be at the path when the server starts.
    public enum Expectation: Sendable, Hashable {
        /// A directory that must exist (`policies`).
        case directory
        /// A file that must exist (`caFile`).
        case file
        /// Nothing: created on first run (`database.path`), or only advice when missing (`smsboxConfig`).
        case none
    }

    /// The dotted key, `providers.push.apns.http.caFile`.
    public let key: String
    public let written: String
    public let resolved: String
    public let expectation: Expectation
}

extension Configuration {
    /// Resolves every relative path-valued key against `directory` (the configuration file's directory) and
    /// lists them all, so the shell can check that what must exist does. Absolute paths stay as written.
    mutating func resolvePaths(against directory: String) -> [ConfiguredPath] {
        var paths: [ConfiguredPath] = []
        func resolveRequired(_ value: inout String, _ key: String, _ expectation: ConfiguredPath.Expectation) {
            let resolved = Self.resolve(value, against: directory)
            paths.append(ConfiguredPath(key: key, written: value, resolved: resolved, expectation: expectation))
            value = resolved
        }
        func resolveOptional(_ value: inout String?, _ key: String, _ expectation: ConfiguredPath.Expectation) {
            guard var text = value else { return }
            resolveRequired(&text, key, expectation)
            value = text
        }
        resolveRequired(&database.path, "database.path", .none)
        resolveRequired(&policies, "policies", .directory)
        switch providers.push {
        case .simulator:
            break
        case .services(var apns, var fcm):
            resolveOptional(&apns.http.caFile, "providers.push.apns.http.caFile", .file)
            resolveOptional(&fcm.http.caFile, "providers.push.fcm.http.caFile", .file)
            providers.push = .services(apns, fcm)
        }
        switch providers.sms {
        case .simulator, .smpp:
            break
        case .kannel(var kannel):
            resolveOptional(&kannel.smsboxConfig, "providers.sms.kannel.smsboxConfig", .none)
            providers.sms = .kannel(kannel)
        }
        return paths
    }

    /// `path` when absolute, else `directory/path` with `.` and `..` components folded (`/srv/Config` and
    /// `../Policies` give `/srv/Policies`). Purely textual: symbolic links are not followed.
    static func resolve(_ path: String, against directory: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let joined = directory.isEmpty ? path : directory + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                if let last = parts.last, last != ".." { parts.removeLast() } else if !joined.hasPrefix("/") { parts.append(part) }
            default: parts.append(part)
            }
        }
        let body = parts.joined(separator: "/")
        return joined.hasPrefix("/") ? "/" + body : (body.isEmpty ? "." : body)
    }
}
