import Foundation

extension Configuration {
    /// Decodes `data` (the contents of `file`), resolves its relative paths against `directory` (the file's
    /// directory, absolute; nil leaves them as written), applies the `TANDEM_LISTEN` and `TANDEM_DB` overrides
    /// from `environment` (which stay relative to the working directory), and reads every secret the file names
    /// from `environment`.
    public static func load(data: Data, file: String, directory: String? = nil,
                            environment: [String: String]) throws(ConfigurationError) -> Configuration {
        var configuration = try StrictJSON.decode(Configuration.self, from: data, file: file)
        if let directory {
            configuration.paths = configuration.resolvePaths(against: directory)
        }
        if let listen = environment["TANDEM_LISTEN"] {
            guard let address = ListenAddress(listen) else {
                throw ConfigurationError(file: "TANDEM_LISTEN", key: "listen",
                                         problem: "expected host:port like 127.0.0.1:8080, got \"\(listen)\"")
            }
            configuration.listen = address
        }
        if let path = environment["TANDEM_DB"] {
            guard !path.isEmpty else {
                throw ConfigurationError(file: "TANDEM_DB", key: "database.path", problem: "must not be empty")
            }
            configuration.database.path = path
            configuration.paths.removeAll { $0.key == "database.path" }
        }
        if let url = environment["TANDEM_DATABASE_URL"] {
            if let problem = Database.problem(url: url) {
                throw ConfigurationError(file: "TANDEM_DATABASE_URL", key: "database.url", problem: problem)
            }
            configuration.database.url = url
        }
        if let reference = configuration.database.password {
            guard configuration.database.url != nil else {
                throw ConfigurationError(file: file, key: "database.password", problem: "is a PostgreSQL password: set database.url too")
            }
            configuration.database.password = try resolve(reference, key: "database.password", file: file, environment: environment)
        }
        if let reference = configuration.metrics.bearerToken {
            configuration.metrics.bearerToken = try resolve(reference, key: "metrics.bearerToken",
                                                            file: file, environment: environment)
        }
        if let reference = configuration.dashboard.token {
            configuration.dashboard.token = try resolve(reference, key: "dashboard.token", file: file, environment: environment)
        }
        if let reference = configuration.deviceAPI.verification.pinKey {
            let resolved = try resolve(reference, key: "deviceAPI.verification.pinKey", file: file, environment: environment)
            guard resolved.value.utf8.count >= 32 else {
                throw ConfigurationError(file: file, key: "deviceAPI.verification.pinKey",
                                         problem: "the key in \(reference.environmentVariable) must be at least 32 bytes")
            }
            configuration.deviceAPI.verification.pinKey = resolved
        }
        try resolveProviderSecrets(&configuration.providers, file: file, environment: environment)
        try resolveCluster(&configuration, file: file, environment: environment)
        return configuration
    }

    /// `TANDEM_CLUSTER_NODE` names this node; a cluster needs PostgreSQL and a shared secret of 32 bytes or more.
    private static func resolveCluster(_ configuration: inout Configuration, file: String,
                                       environment: [String: String]) throws(ConfigurationError) {
        if let name = environment["TANDEM_CLUSTER_NODE"] {
            guard configuration.cluster != nil else {
                throw ConfigurationError(file: "TANDEM_CLUSTER_NODE", key: "cluster.node", problem: "names a cluster node: add a cluster section too")
            }
            do {
                configuration.cluster?.node = try NodeID(name)
            } catch {
                throw ConfigurationError(file: "TANDEM_CLUSTER_NODE", key: "cluster.node", problem: "\(error)")
            }
        }
        guard let cluster = configuration.cluster else { return }
        guard configuration.database.url != nil else {
            throw ConfigurationError(file: file, key: "cluster", problem: "needs a PostgreSQL database (database.url): an SQLite file serves one node")
        }
        let secret = try resolve(cluster.secret, key: "cluster.secret", file: file, environment: environment)
        guard secret.value.utf8.count >= 32 else {
            throw ConfigurationError(file: file, key: "cluster.secret",
                                     problem: "the secret in \(secret.environmentVariable) must be at least 32 bytes")
        }
        configuration.cluster?.secret = secret
    }

    private static func resolveProviderSecrets(_ providers: inout Providers, file: String,
                                               environment: [String: String]) throws(ConfigurationError) {
        switch providers.sms {
        case .simulator:
            break
        case .smpp(var smpp):
            smpp.password = try resolve(smpp.password, key: "providers.sms.smpp.password", file: file, environment: environment)
            guard smpp.password.value.utf8.count <= 8, smpp.password.value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw ConfigurationError(file: file, key: "providers.sms.smpp.password",
                                         problem: "the password in \(smpp.password.environmentVariable) must be at most 8 printable ASCII characters (SMPP 3.4)")
            }
            providers.sms = .smpp(smpp)
        case .kannel(var kannel):
            kannel.password = try resolve(kannel.password, key: "providers.sms.kannel.password", file: file, environment: environment)
            if let token = kannel.dlrToken {
                kannel.dlrToken = try resolve(token, key: "providers.sms.kannel.dlrToken", file: file, environment: environment)
            }
            providers.sms = .kannel(kannel)
        }
        switch providers.voice {
        case .simulator:
            break
        case .webhook(var webhook):
            if let token = webhook.token {
                webhook.token = try resolve(token, key: "providers.voice.webhook.token", file: file, environment: environment)
            }
            providers.voice = .webhook(webhook)
        }
    }

    private static func resolve(_ reference: SecretReference, key: String, file: String,
                                environment: [String: String]) throws(ConfigurationError) -> SecretReference {
        guard let value = environment[reference.environmentVariable], !value.isEmpty else {
            throw ConfigurationError(file: file, key: key,
                                     problem: "environment variable \(reference.environmentVariable) is not set")
        }
        return SecretReference(environmentVariable: reference.environmentVariable, value: value)
    }
}

extension Configuration: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case listen, http, database, policies, providers, metrics, log, scheduler, gateway, statusReports, simulator, deviceAPI
        case dashboard, mymsp, cluster
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.listen) {
            let text = try c.decode(String.self, forKey: .listen)
            guard let address = ListenAddress(text) else {
                throw c.fail(.listen, "expected host:port like 127.0.0.1:8080, got \"\(text)\"")
            }
            listen = address
        }
        http = try c.decodeIfPresent(HTTP.self, forKey: .http) ?? http
        database = try c.decodeIfPresent(Database.self, forKey: .database) ?? database
        if c.contains(.policies) {
            policies = try c.decode(String.self, forKey: .policies)
            guard !policies.isEmpty else { throw c.fail(.policies, "must not be empty") }
        }
        providers = try c.decodeIfPresent(Providers.self, forKey: .providers) ?? providers
        metrics = try c.decodeIfPresent(Metrics.self, forKey: .metrics) ?? metrics
        dashboard = try c.decodeIfPresent(Dashboard.self, forKey: .dashboard) ?? dashboard
        log = try c.decodeIfPresent(Log.self, forKey: .log) ?? log
        scheduler = try c.decodeIfPresent(SchedulerSettings.self, forKey: .scheduler) ?? scheduler
        gateway = try c.decodeIfPresent(Gateway.self, forKey: .gateway) ?? gateway
        statusReports = try c.decodeIfPresent(StatusReports.self, forKey: .statusReports) ?? statusReports
        simulator = try c.decodeIfPresent(Simulator.self, forKey: .simulator) ?? simulator
        deviceAPI = try c.decodeIfPresent(DeviceAPI.self, forKey: .deviceAPI) ?? deviceAPI
        mymsp = try c.decodeIfPresent(MyMSP.self, forKey: .mymsp) ?? mymsp
        cluster = try c.decodeIfPresent(Cluster.self, forKey: .cluster)
    }
}

extension Configuration.HTTP: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case threads, maxBodyBytes, maxHeaderBytes, maxURLBytes, connectionTimeout, maxConnections, maxConnectionsPerAddress
        case maxBufferedBodyBytes, shutdownGrace, eventLoop
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.threads) { threads = try c.decode(Int.self, forKey: .threads, in: 1...256) }
        if c.contains(.maxBodyBytes) { maxBodyBytes = try c.decode(Int.self, forKey: .maxBodyBytes, in: 1_024...1_073_741_824) }
        if c.contains(.maxHeaderBytes) { maxHeaderBytes = try c.decode(Int.self, forKey: .maxHeaderBytes, in: 1_024...1_048_576) }
        if c.contains(.maxURLBytes) { maxURLBytes = try c.decode(Int.self, forKey: .maxURLBytes, in: 256...1_048_576) }
        if c.contains(.connectionTimeout) {
            connectionTimeout = try c.decodeDuration(forKey: .connectionTimeout, in: .seconds(1)...(.seconds(3_600)))
        }
        if c.contains(.maxConnections) { maxConnections = try c.decode(Int.self, forKey: .maxConnections, in: 1...1_000_000) }
        if c.contains(.maxConnectionsPerAddress) {
            maxConnectionsPerAddress = try c.decode(Int.self, forKey: .maxConnectionsPerAddress, in: 0...1_000_000)
        }
        if c.contains(.maxBufferedBodyBytes) {
            maxBufferedBodyBytes = try c.decode(Int.self, forKey: .maxBufferedBodyBytes, in: 1_024...68_719_476_736)
        }
        if c.contains(.shutdownGrace) {
            shutdownGrace = try c.decodeDuration(forKey: .shutdownGrace, in: .zero...(.seconds(3_600)))
        }
        if c.contains(.eventLoop) { eventLoop = try c.decodeChoice(Configuration.EventLoop.self, forKey: .eventLoop) }
        if maxBufferedBodyBytes < maxBodyBytes {
            throw c.fail(.maxBufferedBodyBytes, "must be at least maxBodyBytes (\(maxBodyBytes)): one largest body must fit")
        }
        if maxURLBytes > maxHeaderBytes {
            throw c.fail(.maxURLBytes, "must not exceed maxHeaderBytes (\(maxHeaderBytes)): the request line is part of the header block")
        }
    }
}

extension Configuration.Database: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case path, readers, busyTimeout, commitWindow, commitMaxWrites, synchronous, checkpointPages, url, password, connectTimeout
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.path) {
            path = try c.decode(String.self, forKey: .path)
            guard !path.isEmpty else { throw c.fail(.path, "must not be empty") }
        }
        if c.contains(.readers) { readers = try c.decode(Int.self, forKey: .readers, in: 1...64) }
        if c.contains(.busyTimeout) { busyTimeout = try c.decodeDuration(forKey: .busyTimeout, in: .zero...(.seconds(600))) }
        if c.contains(.commitWindow) {
            commitWindow = try c.decodeDuration(forKey: .commitWindow, in: .microseconds(1)...(.seconds(1)))
        }
        if c.contains(.commitMaxWrites) { commitMaxWrites = try c.decode(Int.self, forKey: .commitMaxWrites, in: 1...100_000) }
        if c.contains(.synchronous) { synchronous = try c.decodeChoice(Configuration.Synchronous.self, forKey: .synchronous) }
        if c.contains(.checkpointPages) { checkpointPages = try c.decode(Int.self, forKey: .checkpointPages, in: 0...1_000_000) }
        if c.contains(.url) {
            let text = try c.decode(String.self, forKey: .url)
            if let problem = Self.problem(url: text) { throw c.fail(.url, problem) }
            if c.contains(.path) { throw c.fail(.url, "names a PostgreSQL database: leave out database.path (SQLite), or this") }
            url = text
        }
        password = try c.decodeIfPresent(SecretReference.self, forKey: .password)
        if c.contains(.connectTimeout) { connectTimeout = try c.decodeDuration(forKey: .connectTimeout, in: .zero...(.seconds(3_600))) }
    }

    /// Why `url` cannot name a PostgreSQL database, or nil. Only the form is checked here (scheme, no password,
    /// no control characters); libpq parses the rest when the store opens.
    public static func problem(url: String) -> String? {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            return "expected a PostgreSQL URL like postgres://tandem@127.0.0.1:5432/tandem, got \"\(url.prefix(80))\""
        }
        guard !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return "must not contain control characters"
        }
        let authority = url.drop(while: { $0 != "/" }).dropFirst(2).prefix(while: { $0 != "/" && $0 != "?" })
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            return "must not contain the password: name it as database.password: {\"env\": \"NAME\"}"
        }
        if url.contains("password=") {
            return "must not contain the password: name it as database.password: {\"env\": \"NAME\"}"
        }
        return nil
    }
}

extension Configuration.Metrics: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case bearerToken }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        bearerToken = try c.decodeIfPresent(SecretReference.self, forKey: .bearerToken)
    }
}

extension Configuration.Log: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case level, format, accessLog }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if c.contains(.level) { level = try c.decodeChoice(LogLevel.self, forKey: .level) }
        if c.contains(.format) { format = try c.decodeChoice(LogFormat.self, forKey: .format) }
        if c.contains(.accessLog) { accessLog = try c.decode(Bool.self, forKey: .accessLog) }
    }
}

extension SecretReference: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case env }

    /// Only the form `{"env": "NAME"}`: a secret written into the file itself is refused.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), (try? single.decode(String.self)) != nil {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "secrets are not written in the file; name the environment variable: {\"env\": \"NAME\"}"))
        }
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .env)
        let allowed: (UInt8) -> Bool = { $0 == 95 || (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) }
        guard let first = name.utf8.first, !(48...57).contains(first), name.utf8.allSatisfy(allowed) else {
            throw c.fail(.env, "expected an environment variable name like TANDEM_METRICS_TOKEN, got \"\(name)\"")
        }
        self.init(environmentVariable: name, value: "")
    }
}
