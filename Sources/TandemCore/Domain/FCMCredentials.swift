/// What the FCM v1 provider needs to push for one app: the Google service-account JSON file (which names
/// the project, the client e-mail and the private key the OAuth token is signed with).
///
/// Stored in `apps.push_credentials` as `{"serviceAccountFile": "/abs/path.json"}`. A reference only: the
/// path may be shown; the file's contents (a private key) never are.
/// Not guaranteed: that the file exists when it is used (the CLI and the admin API check when it is set).
public struct FCMCredentials: Sendable, Hashable {
    /// An absolute path to the service-account JSON file on the server.
    public var serviceAccountPath: String

    /// Stores the path as given; call ``validate()`` (decoding does) before relying on it.
    public init(serviceAccountPath: String) {
        self.serviceAccountPath = serviceAccountPath
    }

    /// Throws when the path is not absolute.
    public func validate() throws(PushCredentialsError) {
        guard PushCredentialsError.isAbsolutePath(serviceAccountPath) else { throw .serviceAccountFile(serviceAccountPath) }
    }
}

extension FCMCredentials: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case serviceAccountFile
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(serviceAccountPath: try c.decode(String.self, forKey: .serviceAccountFile))
        do {
            try validate()
        } catch {
            throw c.fail(.serviceAccountFile, error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(serviceAccountPath, forKey: .serviceAccountFile)
    }
}
