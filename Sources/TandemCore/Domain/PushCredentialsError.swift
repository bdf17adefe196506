/// Why an app's push credentials were refused. Each case carries the offending value (a path, a name or an
/// identifier, never key material) and its `description` is one sentence for a person to act on.
public enum PushCredentialsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The APNs key file path is not an absolute path.
    case keyFile(String)
    /// The APNs key environment variable is not a portable variable name.
    case keyEnvironmentVariable(String)
    /// The APNs key ID is not 10 ASCII letters or digits.
    case keyID(String)
    /// The Apple team ID is not 10 ASCII letters or digits.
    case teamID(String)
    /// The APNs topic is empty, too long, or contains spaces or control characters.
    case topic(String)
    /// The FCM service-account file path is not an absolute path.
    case serviceAccountFile(String)

    /// The key that names the value in the stored JSON and in the admin API (`keyId`, `topic`, …).
    public var key: String {
        switch self {
        case .keyFile: "keyFile"
        case .keyEnvironmentVariable: "keyEnv"
        case .keyID: "keyId"
        case .teamID: "teamId"
        case .topic: "topic"
        case .serviceAccountFile: "serviceAccountFile"
        }
    }

    public var description: String {
        switch self {
        case .keyFile(let path):
            "the APNs key file must be an absolute path to the .p8 file, got \(JSONText.quoted(path))"
        case .keyEnvironmentVariable(let name):
            "the APNs key environment variable must be a name of letters, digits and underscores that does not "
                + "start with a digit, got \(JSONText.quoted(name))"
        case .keyID(let id):
            "the APNs key ID must be 10 letters or digits (Apple shows it next to the key), got \(JSONText.quoted(id))"
        case .teamID(let id):
            "the APNs team ID must be 10 letters or digits (the Apple developer team), got \(JSONText.quoted(id))"
        case .topic(let topic):
            "the APNs topic must be the app's bundle ID (1 to 255 characters, no spaces), got \(JSONText.quoted(topic))"
        case .serviceAccountFile(let path):
            "the FCM service-account file must be an absolute path to the JSON file, got \(JSONText.quoted(path))"
        }
    }

    /// Starts with `/`, at most 4096 bytes, no control characters (a newline would garble every listing).
    static func isAbsolutePath(_ path: String) -> Bool {
        path.hasPrefix("/") && path.utf8.count <= 4096 && !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }
}
