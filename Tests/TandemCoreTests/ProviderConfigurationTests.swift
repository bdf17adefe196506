import Foundation
import Testing
@testable import TandemCore

@Suite("Configuration: providers")
struct ProviderConfigurationTests {
    private func load(_ json: String, environment: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
        try loadTestConfiguration(json, environment: environment)
    }

    private func problem(_ json: String, environment: [String: String] = [:]) -> String? {
        testConfigurationProblem(json, environment: environment)
    }

    @Test("absent, \"simulator\" and an empty object all mean every provider simulated")
    func simulatorForms() throws {
        for json in ["{}", #"{"providers": "simulator"}"#, #"{"providers": {}}"#,
                     #"{"providers": {"push": "simulator", "sms": "simulator", "voice": "simulator"}}"#] {
            #expect(try load(json).providers == .simulator, "\(json)")
        }
    }

    @Test("\"services\" pushes to Apple's and Google's production endpoints; objects override endpoints and limits")
    func pushServices() throws {
        guard case .services(let apns, let fcm) = try load(#"{"providers": {"push": "services"}}"#).providers.push else {
            Issue.record("expected services")
            return
        }
        #expect(apns.productionURL == "https://api.push.apple.com" && apns.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(apns.tokenRefresh == .seconds(2_400))
        #expect(fcm.baseURL == "https://fcm.googleapis.com" && fcm.tokenURL == nil)

        let custom = try load("""
            {"providers": {"push": {"apns": {"productionURL": "https://127.0.0.1:9443", "tokenRefresh": "25m",
                                             "http": {"connections": 2, "concurrentStreams": 500, "caFile": "/tmp/ca.pem"}},
                                    "fcm": {"tokenURL": "https://127.0.0.1:9444/token"}}}}
            """).providers.push
        guard case .services(let apns2, let fcm2) = custom else {
            Issue.record("expected services")
            return
        }
        #expect(apns2.productionURL == "https://127.0.0.1:9443" && apns2.sandboxURL == "https://api.sandbox.push.apple.com")
        #expect(apns2.tokenRefresh == .seconds(1_500))
        #expect(apns2.http.connections == 2 && apns2.http.concurrentStreams == 500 && apns2.http.caFile == "/tmp/ca.pem")
        #expect(fcm2.tokenURL == "https://127.0.0.1:9444/token")
    }

    @Test("SMPP with its password from the environment; defaults for the rest")
    func smpp() throws {
        let providers = try load("""
            {"providers": {"sms": {"smpp": {"host": "127.0.0.1", "port": 2775, "systemId": "tandem",
                                            "password": {"env": "SMPP_PASSWORD"}, "window": 50, "binds": 2}}}}
            """, environment: ["SMPP_PASSWORD": "s3cret"]).providers
        guard case .smpp(let smpp) = providers.sms else {
            Issue.record("expected smpp")
            return
        }
        #expect(smpp.host == "127.0.0.1" && smpp.port == 2775 && smpp.systemID == "tandem")
        #expect(smpp.password.value == "s3cret")
        #expect(smpp.window == 50 && smpp.binds == 2 && smpp.name == "smpp" && smpp.submitsPerSecond == nil)
        #expect(providers.summary == "push=simulator sms=smpp voice=simulator")
    }

    @Test("Kannel and the voice webhook resolve their secrets")
    func kannelAndVoice() throws {
        let providers = try load("""
            {"providers": {"sms": {"kannel": {"sendsmsURL": "http://127.0.0.1:13013/cgi-bin/sendsms", "username": "tandem",
                                              "password": {"env": "KANNEL_PASSWORD"}, "dlrURL": "http://127.0.0.1:8080/kannel/dlr",
                                              "dlrToken": {"env": "KANNEL_DLR_TOKEN"}}},
                           "voice": {"webhook": {"url": "https://voice.example/call", "token": {"env": "VOICE_TOKEN"}}}}}
            """, environment: ["KANNEL_PASSWORD": "p", "KANNEL_DLR_TOKEN": "t", "VOICE_TOKEN": "v"]).providers
        guard case .kannel(let kannel) = providers.sms, case .webhook(let voice) = providers.voice else {
            Issue.record("expected kannel and a webhook")
            return
        }
        #expect(kannel.password.value == "p" && kannel.dlrToken?.value == "t" && kannel.dlrMask == 19)
        #expect(kannel.smsboxConfig == nil)
        #expect(voice.url == "https://voice.example/call" && voice.token?.value == "v")
    }

    @Test("Kannel's smsboxConfig names the smsbox configuration to check at start-up")
    func kannelSmsboxConfig() throws {
        let providers = try load("""
            {"providers": {"sms": {"kannel": {"sendsmsURL": "http://127.0.0.1:13013/cgi-bin/sendsms", "username": "tandem",
                                              "password": {"env": "KANNEL_PASSWORD"}, "dlrURL": "http://127.0.0.1:8080/kannel/dlr",
                                              "smsboxConfig": "/etc/kannel/kannel.conf"}}}}
            """, environment: ["KANNEL_PASSWORD": "p"]).providers
        guard case .kannel(let kannel) = providers.sms else {
            Issue.record("expected kannel")
            return
        }
        #expect(kannel.smsboxConfig == "/etc/kannel/kannel.conf")
    }

    @Test("each mistake is named with its key", arguments: [
        (#"{"providers": {"push": "apns"}}"#, #"Config/test.json: providers.push: expected "simulator", "services" or an object"#),
        (#"{"providers": {"push": {"apns": {"productionURL": "api.push.apple.com"}}}}"#,
         #"Config/test.json: providers.push.apns.productionURL: expected an absolute http:// or https:// URL"#),
        (#"{"providers": {"push": {"apns": {"tokenRefresh": "60m"}}}}"#, "Config/test.json: providers.push.apns.tokenRefresh: must be between 20m and 50m"),
        (#"{"providers": {"push": {"apns": {"http": {"streams": 5}}}}}"#, "Config/test.json: providers.push.apns.http.streams: unknown key"),
        (#"{"providers": {"sms": {}}}"#, #"Config/test.json: providers.sms.smpp: give "smpp" or "kannel""#),
        (#"{"providers": {"sms": {"smpp": {"host": "h", "port": 1, "systemId": "s", "password": {"env": "P"}}, "kannel": {}}}}"#,
         #"Config/test.json: providers.sms.kannel: give either "smpp" or "kannel", not both"#),
        (#"{"providers": {"sms": {"smpp": {"host": "h", "port": 1, "systemId": "s", "password": "plain"}}}}"#,
         "Config/test.json: providers.sms.smpp.password: secrets are not written in the file"),
        (#"{"providers": {"sms": {"smpp": {"host": "h", "port": 1, "systemId": "s", "password": {"env": "TANDEM_NOT_SET"}}}}}"#,
         "Config/test.json: providers.sms.smpp.password: environment variable TANDEM_NOT_SET is not set"),
        (#"{"providers": {"sms": {"smpp": {"host": "h", "port": 1, "systemId": "a-much-too-long-id", "password": {"env": "P"}}}}}"#,
         "Config/test.json: providers.sms.smpp.systemId: must be 1 to 15 characters"),
        (#"{"providers": {"sms": {"smpp": {"host": "h", "port": 1, "systemId": "s", "password": {"env": "P"}, "reconnectMin": "10s", "reconnectMax": "1s"}}}}"#,
         "Config/test.json: providers.sms.smpp.reconnectMax: must not be below reconnectMin"),
        (#"{"providers": {"voice": {"webhook": {}}}}"#, "Config/test.json: providers.voice.webhook.url:"),
        (#"{"providers": {"sms": {"smpp": {"host": "h", "port": 1, "systemId": "s", "password": {"env": "LONG"}}}}}"#,
         "Config/test.json: providers.sms.smpp.password: the password in LONG must be at most 8 printable ASCII characters"),
    ])
    func mistakes(json: String, expected: String) {
        let message = problem(json, environment: ["P": "x", "LONG": "123456789"])
        #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
    }
}
