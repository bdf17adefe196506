extension Configuration.Providers: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case push, sms, voice }

    /// `"simulator"`, or an object whose members default to the simulator.
    public init(from decoder: any Decoder) throws {
        self.init()
        if let word = try? decoder.singleValueContainer().decode(String.self) {
            guard word == "simulator" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                    "expected \"simulator\" or an object with \"push\", \"sms\" and \"voice\", got \"\(word)\""))
            }
            return
        }
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        push = try c.decodeIfPresent(Configuration.PushProviders.self, forKey: .push) ?? .simulator
        sms = try c.decodeIfPresent(Configuration.SMSProvider.self, forKey: .sms) ?? .simulator
        voice = try c.decodeIfPresent(Configuration.VoiceProvider.self, forKey: .voice) ?? .simulator
    }
}

extension Configuration.PushProviders: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case apns, fcm }

    public init(from decoder: any Decoder) throws {
        if let word = try? decoder.singleValueContainer().decode(String.self) {
            switch word {
            case "simulator": self = .simulator
            case "services": self = .services(Configuration.APNs(), Configuration.FCM())
            default:
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                    "expected \"simulator\", \"services\" or an object with \"apns\" and \"fcm\", got \"\(word)\""))
            }
            return
        }
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = .services(try c.decodeIfPresent(Configuration.APNs.self, forKey: .apns) ?? Configuration.APNs(),
                         try c.decodeIfPresent(Configuration.FCM.self, forKey: .fcm) ?? Configuration.FCM())
    }
}

extension Configuration.SMSProvider: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case smpp, kannel }

    public init(from decoder: any Decoder) throws {
        if let word = try? decoder.singleValueContainer().decode(String.self) {
            guard word == "simulator" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                    "expected \"simulator\" or an object with \"smpp\" or \"kannel\", got \"\(word)\""))
            }
            self = .simulator
            return
        }
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch (c.contains(.smpp), c.contains(.kannel)) {
        case (true, false): self = .smpp(try c.decode(Configuration.SMPP.self, forKey: .smpp))
        case (false, true): self = .kannel(try c.decode(Configuration.Kannel.self, forKey: .kannel))
        case (true, true): throw c.fail(.kannel, "give either \"smpp\" or \"kannel\", not both")
        case (false, false): throw c.fail(.smpp, "give \"smpp\" or \"kannel\" (or write \"simulator\")")
        }
    }
}

extension Configuration.VoiceProvider: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case webhook }

    public init(from decoder: any Decoder) throws {
        if let word = try? decoder.singleValueContainer().decode(String.self) {
            guard word == "simulator" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                    "expected \"simulator\" or an object with \"webhook\", got \"\(word)\""))
            }
            self = .simulator
            return
        }
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = .webhook(try c.decode(Configuration.VoiceWebhook.self, forKey: .webhook))
    }
}

extension Configuration.HTTP2Limits: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case connections, concurrentStreams, caFile, timeout, maxAttempts }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.connections) { connections = try c.decode(Int.self, forKey: .connections, in: 1...64) }
        if c.contains(.concurrentStreams) { concurrentStreams = try c.decode(Int.self, forKey: .concurrentStreams, in: 1...10_000) }
        if c.contains(.caFile) { caFile = try c.decodeNonEmpty(forKey: .caFile) }
        if c.contains(.timeout) { timeout = try c.decodeDuration(forKey: .timeout, in: .milliseconds(100)...(.seconds(300))) }
        if c.contains(.maxAttempts) { maxAttempts = try c.decode(Int.self, forKey: .maxAttempts, in: 1...20) }
    }
}

extension Configuration.APNs: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case productionURL, sandboxURL, tokenRefresh, http }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.productionURL) { productionURL = try c.decodeURL(forKey: .productionURL) }
        if c.contains(.sandboxURL) { sandboxURL = try c.decodeURL(forKey: .sandboxURL) }
        if c.contains(.tokenRefresh) {
            tokenRefresh = try c.decodeDuration(forKey: .tokenRefresh, in: .seconds(20 * 60)...(.seconds(50 * 60)))
        }
        http = try c.decodeIfPresent(Configuration.HTTP2Limits.self, forKey: .http) ?? http
    }
}

extension Configuration.FCM: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case baseURL, tokenURL, notification, http }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.baseURL) { baseURL = try c.decodeURL(forKey: .baseURL) }
        if c.contains(.tokenURL) { tokenURL = try c.decodeURL(forKey: .tokenURL) }
        if c.contains(.notification) { notification = try c.decode(Bool.self, forKey: .notification) }
        http = try c.decodeIfPresent(Configuration.HTTP2Limits.self, forKey: .http) ?? http
    }
}

extension Configuration.SMPP: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, systemId, password, systemType, name, binds, window, submitsPerSecond, enquireLinkInterval,
             responseTimeout, reconnectMin, reconnectMax
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let systemID = try c.decode(String.self, forKey: .systemId)
        guard (1...15).contains(systemID.utf8.count) else { throw c.fail(.systemId, "must be 1 to 15 characters (SMPP 3.4)") }
        self.init(host: try c.decodeNonEmpty(forKey: .host), port: try c.decode(UInt16.self, forKey: .port, in: 1...65_535),
                  systemID: systemID, password: try c.decode(SecretReference.self, forKey: .password))
        if c.contains(.systemType) {
            systemType = try c.decode(String.self, forKey: .systemType)
            guard systemType.utf8.count <= 12 else { throw c.fail(.systemType, "must be at most 12 characters (SMPP 3.4)") }
        }
        if c.contains(.name) { name = try c.decodeNonEmpty(forKey: .name) }
        if c.contains(.binds) { binds = try c.decode(Int.self, forKey: .binds, in: 1...64) }
        if c.contains(.window) { window = try c.decode(Int.self, forKey: .window, in: 1...10_000) }
        if c.contains(.submitsPerSecond) { submitsPerSecond = try c.decode(Int.self, forKey: .submitsPerSecond, in: 1...1_000_000) }
        if c.contains(.enquireLinkInterval) {
            enquireLinkInterval = try c.decodeDuration(forKey: .enquireLinkInterval, in: .seconds(1)...(.seconds(3_600)))
        }
        if c.contains(.responseTimeout) {
            responseTimeout = try c.decodeDuration(forKey: .responseTimeout, in: .milliseconds(100)...(.seconds(300)))
        }
        if c.contains(.reconnectMin) { reconnectMin = try c.decodeDuration(forKey: .reconnectMin, in: .milliseconds(10)...(.seconds(600))) }
        if c.contains(.reconnectMax) { reconnectMax = try c.decodeDuration(forKey: .reconnectMax, in: .milliseconds(10)...(.seconds(3_600))) }
        guard reconnectMin <= reconnectMax else { throw c.fail(.reconnectMax, "must not be below reconnectMin") }
    }
}

extension Configuration.Kannel: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case sendsmsURL, username, password, dlrURL, dlrMask, smsc, dlrToken, timeout, connections, smsboxConfig
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(sendsmsURL: try c.decodeURL(forKey: .sendsmsURL), username: try c.decodeNonEmpty(forKey: .username),
                  password: try c.decode(SecretReference.self, forKey: .password), dlrURL: try c.decodeURL(forKey: .dlrURL))
        if c.contains(.dlrMask) { dlrMask = try c.decode(Int.self, forKey: .dlrMask, in: 0...31) }
        if c.contains(.smsc) { smsc = try c.decodeNonEmpty(forKey: .smsc) }
        dlrToken = try c.decodeIfPresent(SecretReference.self, forKey: .dlrToken)
        if c.contains(.timeout) { timeout = try c.decodeDuration(forKey: .timeout, in: .milliseconds(100)...(.seconds(300))) }
        if c.contains(.connections) { connections = try c.decode(Int.self, forKey: .connections, in: 1...64) }
        if c.contains(.smsboxConfig) { smsboxConfig = try c.decodeNonEmpty(forKey: .smsboxConfig) }
    }
}

extension Configuration.VoiceWebhook: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case url, token, timeout }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(url: try c.decodeURL(forKey: .url))
        token = try c.decodeIfPresent(SecretReference.self, forKey: .token)
        if c.contains(.timeout) { timeout = try c.decodeDuration(forKey: .timeout, in: .milliseconds(100)...(.seconds(300))) }
    }
}

extension KeyedDecodingContainer {
    /// An absolute `http://` or `https://` URL without spaces.
    func decodeURL(forKey key: Key) throws -> String {
        let text = try decode(String.self, forKey: key)
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.utf8.count > 8,
              !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw fail(key, "expected an absolute http:// or https:// URL, got \"\(text)\"")
        }
        return text
    }

    func decodeNonEmpty(forKey key: Key) throws -> String {
        let text = try decode(String.self, forKey: key)
        guard !text.isEmpty else { throw fail(key, "must not be empty") }
        return text
    }
}
