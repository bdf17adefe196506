import Foundation
import Testing
import TandemCore
@testable import TandemProviders

@Suite("Voice PIN webhook")
struct WebhookVoiceCallerTests {
    static func message(language: String? = "en_US") -> PinMessage {
        PinMessage(msisdn: MSISDN("+31612345678")!, pin: "4821", sender: "Verify", text: "Your PIN is 4821", language: language)
    }

    private struct Fake {
        let peer: PeerProcess
        let client: HTTPClient

        init() async throws {
            peer = try await PeerProcess.pythonPeer("voice_fake.py")
            client = try HTTPClient(configuration: configuration())
        }

        func caller(path: String = "/call", token: String? = "voice-token", logger: Logger = .discarding) throws -> WebhookVoiceCaller {
            try WebhookVoiceCaller(settings: .init(url: "http://127.0.0.1:\(peer.port)\(path)", bearerToken: token),
                                   client: client, logger: logger)
        }

        func received() async throws -> [[String: Any]] {
            let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(peer.port)/_received"))
            return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        }
    }

    @Test("POSTs {to, pin, language} as JSON with the bearer token; a 2xx means placed; the PIN is not logged")
    func placed() async throws {
        let fake = try await Fake()
        defer { fake.peer.stop() }
        let lines = LogLines()
        try await fake.caller(logger: lines.logger).callPIN(Self.message())
        let request = try #require(try await fake.received().first)
        #expect(request["method"] as? String == "POST" && request["path"] as? String == "/call")
        let headers = try #require(request["headers"] as? [String: String])
        #expect(headers["authorization"] == "Bearer voice-token")
        #expect(headers["content-type"] == "application/json")
        let body = try #require(request["body"] as? String)
        #expect(body == #"{"to":"+31612345678","pin":"4821","language":"en_US"}"#)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
        #expect(decoded == ["to": "+31612345678", "pin": "4821", "language": "en_US"])
        #expect(lines.all.count == 1 && lines.all[0].contains("voice call placed") && !lines.all[0].contains("4821"))
    }

    @Test("an unknown language is null; without a token there is no Authorization header")
    func nullLanguageNoToken() async throws {
        let fake = try await Fake()
        defer { fake.peer.stop() }
        try await fake.caller(token: nil).callPIN(Self.message(language: nil))
        let request = try #require(try await fake.received().first)
        #expect(request["body"] as? String == #"{"to":"+31612345678","pin":"4821","language":null}"#)
        #expect((request["headers"] as? [String: String])?["authorization"] == nil)
    }

    @Test("any other status throws with the status and an excerpt, the echoed PIN masked", arguments: [500, 404, 302])
    func refused(status: Int) async throws {
        let fake = try await Fake()
        defer { fake.peer.stop() }
        let lines = LogLines()
        let caller = try fake.caller(path: "/status/\(status)", logger: lines.logger)
        do {
            try await caller.callPIN(Self.message())
            Issue.record("expected HTTP \(status) to fail")
        } catch {
            #expect(error.reason == "voice webhook answered HTTP \(status): refused: pin **** was not read")
        }
        #expect(!lines.all.joined().contains("4821"))
    }

    @Test("an unreachable webhook throws; bad settings are refused")
    func unreachableAndSettings() async throws {
        let fake = try await Fake()
        let caller = try fake.caller()
        fake.peer.stop()
        do {
            try await caller.callPIN(Self.message())
            Issue.record("expected the call to fail")
        } catch {
            #expect(error.reason.hasPrefix("voice webhook unreachable: connect failed"))
        }
        #expect(throws: VoiceWebhookSettingsError.url) {
            _ = try WebhookVoiceCaller(settings: .init(url: "voice.example/call"), client: fake.client)
        }
        #expect(throws: VoiceWebhookSettingsError.bearerToken) {
            _ = try WebhookVoiceCaller(settings: .init(url: "https://voice.example/call", bearerToken: "a b"), client: fake.client)
        }
    }
}
