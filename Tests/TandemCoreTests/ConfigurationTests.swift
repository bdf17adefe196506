import Foundation
import Testing
@testable import TandemCore

@Suite("Configuration files")
struct ConfigurationTests {
    private func load(_ json: String, environment: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
        try loadTestConfiguration(json, environment: environment)
    }

    private func problem(_ json: String, environment: [String: String] = [:]) -> String? {
        testConfigurationProblem(json, environment: environment)
    }

    @Test("the shipped default and production example files load")
    func shippedFilesLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let defaults = try Configuration.load(data: Data(contentsOf: root.appendingPathComponent("Config/tandem.json")),
                                              file: "Config/tandem.json", directory: root.path + "/Config", environment: [:])
        #expect(defaults.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(defaults.database.path == root.path + "/data/tandem.sqlite", "make run keeps the repository's data/")
        #expect(defaults.policies == root.path + "/Policies")
        #expect(defaults.providers == .simulator)
        #expect(defaults.database.commitWindow == .milliseconds(2))
        #expect(defaults.database.commitMaxWrites == 512)
        #expect(defaults.database.checkpointPages == 1_000)

        let production = try Configuration.load(data: Data(contentsOf: root.appendingPathComponent("Config/production.example.json")),
                                                file: "Config/production.example.json",
                                                environment: ["TANDEM_METRICS_TOKEN": "t0k3n", "TANDEM_SMPP_PASSWORD": "pw",
                                                              "TANDEM_VOICE_TOKEN": "vt", "TANDEM_DASHBOARD_TOKEN": "dt",
                                                              "TANDEM_PIN_KEY": String(repeating: "k", count: 32)])
        #expect(production.metrics.bearerToken?.value == "t0k3n")
        #expect(production.dashboard.token?.value == "dt")
        #expect(production.providers.summary == "push=apns+fcm sms=smpp voice=webhook")
        #expect(production.database.synchronous == .full)
        #expect(production.database.checkpointPages == 1_000)
        #expect(production.scheduler.expectedTimers == 1_000_000)
        #expect(production.scheduler.smsReportWait == .seconds(3_600))
        #expect(production.gateway.idempotencyRetention == .seconds(86_400))
        #expect(production.gateway.spoolRecipients == 100 && production.gateway.spoolChunk == 256)
        #expect(production.gateway.spoolMaxInFlight == 1_000_000)
        #expect(production.statusReports.giveUpAfter == .seconds(7 * 86_400))
        #expect(production.simulator.smsReportAfter == .milliseconds(500))
        #expect(production.deviceAPI.hosts == ["api.example.com"])
        #expect(production.deviceAPI.limits.pinPerMSISDN == Configuration.Budget(limit: 3, window: .seconds(3_600)))
        #expect(production.deviceAPI.verification.pinKey?.value.count == 32)
        #expect(production.deviceAPI.verification.settings == VerificationSettings())
        #expect(production.deviceAPI == {
            var expected = Configuration.DeviceAPI()
            expected.hosts = ["api.example.com"]
            expected.verification.pinKey = production.deviceAPI.verification.pinKey
            return expected
        }())
    }

    @Test("deviceAPI: a short PIN key, a text without {pin}, a budget without a window are refused")
    func deviceAPIErrors() {
        let cases: [(String, [String: String], String)] = [
            (#"{"deviceAPI": {"verification": {"pinKey": {"env": "K"}}}}"#, ["K": "short"], "at least 32 bytes"),
            (#"{"deviceAPI": {"verification": {"text": "no pin here"}}}"#, [:], "must contain {pin}"),
            (#"{"deviceAPI": {"limits": {"pinPerApp": {"limit": 5}}}}"#, [:], "window"),
            (#"{"deviceAPI": {"hosts": ["https://api.example.com/"]}}"#, [:], "host names"),
            (#"{"deviceAPI": {"updateIDLifetime": "1h"}}"#, [:], "updateIDLifetime"),
        ]
        for (json, environment, problem) in cases {
            #expect(throws: ConfigurationError.self) {
                try Configuration.load(data: Data(json.utf8), file: "t.json", environment: environment)
            }
            do {
                _ = try Configuration.load(data: Data(json.utf8), file: "t.json", environment: environment)
            } catch {
                #expect("\(error)".contains(problem), "\(json): \(error)")
            }
        }
    }

    @Test("delivery settings: bad values name their key")
    func deliverySettingsErrors() {
        for (json, message) in [
            (#"{"gateway": {"idempotencyRetention": "1h"}}"#, "gateway.idempotencyRetention"),
            (#"{"gateway": {"spoolRecipients": -1}}"#, "gateway.spoolRecipients"),
            (#"{"gateway": {"spoolChunk": 0}}"#, "gateway.spoolChunk"),
            (#"{"gateway": {"spoolMaxInFlight": 0}}"#, "gateway.spoolMaxInFlight"),
            (#"{"statusReports": {"initialRetryDelay": "10s", "maximumRetryDelay": "1s"}}"#, "statusReports.maximumRetryDelay"),
            (#"{"scheduler": {"tick": "0ms"}}"#, "scheduler.tick"),
            (#"{"scheduler": {"smsReportWait": "8d"}}"#, "scheduler.smsReportWait"),
            (#"{"simulator": {"smsReportAfer": "1s"}}"#, "did you mean \"smsReportAfter\""),
        ] {
            #expect(throws: ConfigurationError.self) { try load(json) }
            do { _ = try load(json) } catch { #expect("\(error)".contains(message), "\(error)") }
        }
    }

    @Test("scheduler.smsReportWait: an hour unless set; 0 ends an SMS at its validity's end")
    func smsReportWait() throws {
        #expect(try load("{}").scheduler.smsReportWait == .seconds(3_600))
        #expect(try load(#"{"scheduler": {"smsReportWait": "10m"}}"#).scheduler.smsReportWait == .seconds(600))
        #expect(try load(#"{"scheduler": {"smsReportWait": "0s"}}"#).scheduler.smsReportWait == .zero)
    }

    @Test("an empty object gives every default")
    func emptyObjectGivesDefaults() throws {
        #expect(try load("{}") == Configuration())
    }

    @Test("database.checkpointPages: 0 chooses SQLite's inline checkpoints, a count the background threshold")
    func checkpointPages() throws {
        #expect(try load(#"{"database": {"checkpointPages": 0}}"#).database.checkpointPages == 0)
        #expect(try load(#"{"database": {"checkpointPages": 250}}"#).database.checkpointPages == 250)
    }

    @Test("comments (keys starting with an underscore) are allowed at every level")
    func commentsAllowed() throws {
        let configuration = try load(#"{"_comment": "x", "http": {"_why": "y", "threads": 8}}"#)
        #expect(configuration.http.threads == 8)
    }

    @Test("every kind of bad file yields its file: key: problem", arguments: [
        ("{", "Config/test.json:1:2: expected a key in double quotes, got the end of file"),
        ("{\"listen\": \"127.0.0.1:1\",}", "Config/test.json:1:25: trailing comma before '}'"),
        ("[]", "Config/test.json: (document): expected an object"),
        (#"{"listn": "1:2"}"#, #"Config/test.json: listn: unknown key (did you mean "listen"?)"#),
        (#"{"http": {"thread": 4}}"#, #"Config/test.json: http.thread: unknown key (did you mean "threads"?)"#),
        (#"{"database": {"PATH": "x"}}"#, #"Config/test.json: database.PATH: unknown key (did you mean "path"?)"#),
        (#"{"zzz": 1}"#, "Config/test.json: zzz: unknown key"),
        (#"{"listen": 8080}"#, "Config/test.json: listen: expected a string"),
        (#"{"listen": "localhost"}"#, #"Config/test.json: listen: expected host:port like 127.0.0.1:8080, got "localhost""#),
        (#"{"listen": "127.0.0.1:99999"}"#, "Config/test.json: listen: expected host:port"),
        (#"{"http": {"threads": 0}}"#, "Config/test.json: http.threads: must be between 1 and 256, got 0"),
        (#"{"http": {"threads": "four"}}"#, "Config/test.json: http.threads: expected an integer"),
        (#"{"http": {"threads": null}}"#, "Config/test.json: http.threads: expected an integer, got null"),
        (#"{"http": {"maxBodyBytes": 10}}"#, "Config/test.json: http.maxBodyBytes: must be between 1024 and"),
        (#"{"http": {"maxURLBytes": 65536}}"#, "Config/test.json: http.maxURLBytes: must not exceed maxHeaderBytes"),
        (#"{"http": {"connectionTimeout": "30"}}"#, #"Config/test.json: http.connectionTimeout: expected a duration like "500ms""#),
        (#"{"http": {"connectionTimeout": "2h"}}"#, "Config/test.json: http.connectionTimeout: must be between 1s and 1h"),
        (#"{"http": {"eventLoop": "select"}}"#, #"Config/test.json: http.eventLoop: expected "epoll" or "poll", got "select""#),
        (#"{"http": []}"#, "Config/test.json: http: expected an object"),
        (#"{"database": {"path": ""}}"#, "Config/test.json: database.path: must not be empty"),
        (#"{"database": {"commitWindow": "5s"}}"#, "Config/test.json: database.commitWindow: must be between 1us and 1s"),
        (#"{"database": {"commitMaxWrites": 0}}"#, "Config/test.json: database.commitMaxWrites: must be between 1 and 100000"),
        (#"{"database": {"checkpointPages": -1}}"#, "Config/test.json: database.checkpointPages: must be between 0 and 1000000"),
        (#"{"database": {"synchronous": "off"}}"#, #"Config/test.json: database.synchronous: expected "normal" or "full", got "off""#),
        (#"{"providers": "apns"}"#, #"Config/test.json: providers: expected "simulator" or an object with "push", "sms" and "voice", got "apns""#),
        (#"{"log": {"level": "loud"}}"#, #"Config/test.json: log.level: expected one of "debug", "info", "warning", "error", got "loud""#),
        (#"{"metrics": {"bearerToken": "hunter2"}}"#, "Config/test.json: metrics.bearerToken: secrets are not written in the file"),
        (#"{"metrics": {"bearerToken": {"env": "1BAD"}}}"#, "Config/test.json: metrics.bearerToken.env: expected an environment variable name"),
        (#"{"metrics": {"bearerToken": {"env": "TANDEM_NOT_SET"}}}"#, "Config/test.json: metrics.bearerToken: environment variable TANDEM_NOT_SET is not set"),
    ])
    func badFiles(json: String, expected: String) {
        let message = problem(json)
        #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
    }

    @Test("TANDEM_LISTEN and TANDEM_DB override the file")
    func environmentOverrides() throws {
        let configuration = try load(#"{"listen": "127.0.0.1:8080", "database": {"path": "a.sqlite"}}"#,
                                     environment: ["TANDEM_LISTEN": "[::1]:0", "TANDEM_DB": "/tmp/b.sqlite"])
        #expect(configuration.listen == ListenAddress(host: "::1", port: 0))
        #expect(configuration.database.path == "/tmp/b.sqlite")
        #expect(problem("{}", environment: ["TANDEM_LISTEN": "nope"]) == #"TANDEM_LISTEN: listen: expected host:port like 127.0.0.1:8080, got "nope""#)
        #expect(problem("{}", environment: ["TANDEM_DB": ""]) == "TANDEM_DB: database.path: must not be empty")
    }

    @Test("database.url names a PostgreSQL database, its password comes from the environment, TANDEM_DATABASE_URL overrides")
    func postgresDatabase() throws {
        let configuration = try load(#"{"database": {"url": "postgres://tandem@127.0.0.1:5432/tandem", "password": {"env": "PGPW"}, "connectTimeout": "5s"}}"#,
                                     environment: ["PGPW": "s3cr3t"])
        #expect(configuration.database.url == "postgres://tandem@127.0.0.1:5432/tandem")
        #expect(configuration.database.password?.value == "s3cr3t")
        #expect(configuration.database.connectTimeout == .seconds(5))
        let overridden = try load("{}", environment: ["TANDEM_DATABASE_URL": "postgresql:///t?host=/tmp/pg"])
        #expect(overridden.database.url == "postgresql:///t?host=/tmp/pg")
        #expect(try load("{}").database.url == nil)
        #expect(problem(#"{"database": {"url": "mysql://x/y"}}"#)?.contains("database.url: expected a PostgreSQL URL") == true)
        #expect(problem(#"{"database": {"url": "postgres://u:pw@h/db"}}"#)?.contains("must not contain the password") == true)
        #expect(problem(#"{"database": {"url": "postgres://u@h/db?password=x"}}"#)?.contains("must not contain the password") == true)
        #expect(problem(#"{"database": {"url": "postgres://h/db", "path": "a.sqlite"}}"#)?.contains("leave out database.path") == true)
        #expect(problem(#"{"database": {"password": {"env": "PGPW"}}}"#, environment: ["PGPW": "x"])?
            .contains("database.password: is a PostgreSQL password: set database.url too") == true)
        #expect(problem(#"{"database": {"url": "postgres://h/db", "password": {"env": "UNSET_PW"}}}"#)?
            .contains("environment variable UNSET_PW is not set") == true)
        #expect(problem("{}", environment: ["TANDEM_DATABASE_URL": "nope"])?.hasPrefix("TANDEM_DATABASE_URL: database.url: expected") == true)
    }

    @Test("a secret is read from the environment variable the file names, and never printed")
    func secretsFromEnvironment() throws {
        let configuration = try load(#"{"metrics": {"bearerToken": {"env": "MY_TOKEN"}}}"#, environment: ["MY_TOKEN": "s3cr3t"])
        #expect(configuration.metrics.bearerToken?.value == "s3cr3t")
        #expect("\(configuration.metrics.bearerToken!)" == "$MY_TOKEN")
    }

    @Test("listen addresses", arguments: [
        ("127.0.0.1:8080", "127.0.0.1", UInt16(8080)), ("0.0.0.0:0", "0.0.0.0", 0), ("[::1]:443", "::1", 443),
        ("localhost:1", "localhost", 1),
    ])
    func listenAddresses(text: String, host: String, port: UInt16) {
        #expect(ListenAddress(text) == ListenAddress(host: host, port: port))
    }

    @Test("malformed listen addresses are refused", arguments: ["", ":80", "host:", "::1:80", "[::1]80", "a b:1", "h:-1"])
    func badListenAddresses(text: String) {
        #expect(ListenAddress(text) == nil)
    }
}
