/// What the APNs provider needs to push for one app (token-based authentication): where the signing key
/// is, the key's ID and the team ID for the JWT, the topic (the app's bundle ID) and which APNs environment.
///
/// Stored in `apps.push_credentials` as `{"keyFile"|"keyEnv","keyId","teamId","topic","sandbox"}` (see
/// ``AppPushCredentials``). Only references to the key: these values may be shown and logged.
/// Not guaranteed: that Apple accepts them — the identifiers are checked for shape only.
public struct APNsCredentials: Sendable, Hashable {
    public var keySource: APNsKeySource
    /// The 10-character Key ID Apple shows for the `.p8` key (the JWT `kid`).
    public var keyID: String
    /// The 10-character Apple developer Team ID (the JWT `iss`).
    public var teamID: String
    /// The `apns-topic`: the app's bundle ID (with a suffix such as `.voip` for other push types).
    public var topic: String
    /// True for the development environment (`api.sandbox.push.apple.com`), false for production.
    public var sandbox: Bool

    /// Stores the values as given; call ``validate()`` (decoding does) before relying on them.
    public init(keySource: APNsKeySource, keyID: String, teamID: String, topic: String, sandbox: Bool = false) {
        self.keySource = keySource
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.sandbox = sandbox
    }

    /// Throws the first problem, in the order key source, key ID, team ID, topic.
    public func validate() throws(PushCredentialsError) {
        try keySource.validate()
        guard Self.isAppleIdentifier(keyID) else { throw .keyID(keyID) }
        guard Self.isAppleIdentifier(teamID) else { throw .teamID(teamID) }
        guard Self.isTopic(topic) else { throw .topic(topic) }
    }

    /// Exactly 10 ASCII letters or digits (Apple's key and team identifiers).
    public static func isAppleIdentifier(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy(\.isASCIIAlphanumeric)
    }

    /// 1 to 255 bytes, no spaces, no control characters.
    public static func isTopic(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
    }
}

extension APNsCredentials: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case keyFile, keyEnv, keyId, teamId, topic, sandbox
    }

    /// Exactly one of `keyFile` and `keyEnv`; `sandbox` may be absent (false); unknown keys and invalid
    /// values are refused (`dataCorrupted` with the ``PushCredentialsError`` text).
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let source: APNsKeySource
        switch (try c.decodeIfPresent(String.self, forKey: .keyFile), try c.decodeIfPresent(String.self, forKey: .keyEnv)) {
        case (let path?, nil): source = .file(path)
        case (nil, let name?): source = .environment(name)
        case (_?, _?): throw c.fail(.keyEnv, "give either keyFile or keyEnv, not both")
        case (nil, nil): throw c.fail(.keyFile, "keyFile or keyEnv is required")
        }
        self.init(keySource: source, keyID: try c.decode(String.self, forKey: .keyId),
                  teamID: try c.decode(String.self, forKey: .teamId), topic: try c.decode(String.self, forKey: .topic),
                  sandbox: try c.decodeIfPresent(Bool.self, forKey: .sandbox) ?? false)
        do {
            try validate()
        } catch {
            throw c.fail(CodingKeys(rawValue: error.key) ?? .keyFile, error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch keySource {
        case .file(let path): try c.encode(path, forKey: .keyFile)
        case .environment(let name): try c.encode(name, forKey: .keyEnv)
        }
        try c.encode(keyID, forKey: .keyId)
        try c.encode(teamID, forKey: .teamId)
        try c.encode(topic, forKey: .topic)
        try c.encode(sandbox, forKey: .sandbox)
    }
}
