import Testing
import TandemCore
@testable import TandemAPI

/// A provider's failure reaches the device in the device's terms; its own words (libcurl's, with the
/// provider's address and port) reach the log only.
@Suite("Device API: provider failures say what failed, the log says why")
struct DeviceProviderFailureTests {
    static let internals = ["127.0.0.1", "port", "18670", "18671", "Failed to connect", "Couldn't connect", "Kannel",
                            "webhook", "curl"]

    private func expectNoInternals(_ reply: DeviceAPIHarness.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        for word in Self.internals {
            #expect(!reply.text.contains(word), "\(reply.text) names \(word)", sourceLocation: sourceLocation)
        }
    }

    @Test("the PIN SMS on POST and PUT /v1.0/deviceregistrations", arguments: [HTTPMethodCase.post, .put])
    func pinSMS(method: HTTPMethodCase) async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        h.pins.failing(true)
        let reply: DeviceAPIHarness.Reply
        switch method {
        case .post:
            reply = await h.call(.POST, "/v1.0/deviceregistrations", app: h.appA, body: #"{"Msisdn":"+31600000020"}"#)
        case .put:
            let device = try await h.register(h.appA)
            reply = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000020"}"#)
        }
        #expect(reply.status == 502)
        #expect(reply.message == "the PIN could not be sent: the SMS provider is unavailable; try again later")
        expectNoInternals(reply)
        #expect(h.log.all.contains("PIN SMS not sent"))
        #expect(h.log.all.contains("Failed to connect to 127.0.0.1 port 18670"))
    }

    @Test("the PIN voice call on POST /v1.0/deviceregistrations/voicecall")
    func voiceCall() async throws {
        let h = try await DeviceAPIHarness()
        defer { Task { await h.close() } }
        let device = try await h.register(h.appA)
        _ = await h.call(.PUT, "/v1.0/deviceregistrations", app: h.appA, device: device, body: #"{"Msisdn":"+31600000021"}"#)
        #expect(h.pins.sms.count == 1)
        h.pins.failing(true)
        h.clock.advance(to: h.clock.now() + .seconds(1))
        let reply = await h.call(.POST, "/v1.0/deviceregistrations/voicecall", app: h.appA, device: device,
                                 body: #"{"Msisdn":"+31600000021"}"#)
        #expect(reply.status == 502)
        #expect(reply.message == "the voice call could not be placed: the voice call provider is unavailable; try again later")
        expectNoInternals(reply)
        #expect(h.log.all.contains("PIN voice call not placed"))
        #expect(h.log.all.contains("Failed to connect to 127.0.0.1 port 18671"))
    }

    enum HTTPMethodCase: Sendable, CaseIterable, CustomTestStringConvertible {
        case post, put
        var testDescription: String {
            switch self {
            case .post: "POST"
            case .put: "PUT"
            }
        }
    }
}
