import Foundation
import Testing
import TandemCore
import TandemTestSupport
@testable import TandemAPI

/// Tandem's extension of CM's `msg`: SCG's `options` map as the push's presentation.
@Suite("CM msg options")
struct CMOptionsTests {
    static func entry(_ msg: String) throws -> CMMessageEntry {
        let submission = try CMCodec.decodeJSON(Array(#"{"messages":{"msg":[\#(msg)]}}"#.utf8))
        return try #require(submission.messages.first)
    }

    @Test("options map to the message's presentation; a msg without them has the empty one")
    func mapped() throws {
        let message = try Self.entry(#"{"from":"Shop","to":[{"number":"+31612345678"}],"body":{"content":"Hi"},"#
            + #""options":{"push:badge":3,"push:alert:title":"Order","push:appdata:n:seats:1":"9"}}"#).result.get()
        #expect(message.presentation.badge == 3 && message.presentation.title == "Order")
        #expect(message.presentation.customData == [JSONMember(key: "seats", value: .array([.number("9")]))])
        let plain = try Self.entry(#"{"from":"Shop","to":[{"number":"+31612345678"}],"body":{"content":"Hi"}}"#).result.get()
        #expect(plain.presentation == PushPresentation())
    }

    @Test("a bad option refuses that msg with 305 naming the key", arguments: [
        (#"{"push:badge":"lots"}"#, "options.push:badge"), (#"{"push:nope":"x"}"#, "options.push:nope"),
        (#"{"push:appdata:o:a":"[1]"}"#, "options.push:appdata:o:a"), (#""push:badge""#, "options"),
    ])
    func refused(_ options: String, _ key: String) throws {
        let entry = try Self.entry(#"{"from":"Shop","to":[{"number":"+31612345678"}],"body":{"content":"Hi"},"options":\#(options)}"#)
        guard case .failure(let error) = entry.result else { Issue.record("accepted"); return }
        #expect(error.code == .invalidField && error.details.contains(key))
    }

    @Test("a CM msg with options pushes with the mapped presentation")
    func pushed() async throws {
        let h = try await GatewayHarness()
        defer { Task { await h.close() } }
        try await h.verifiedDevice(h.appA, msisdn: "+31612345678")
        let reply = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken,
            #"{"from":"Shop","to":[{"number":"+31612345678"}],"body":{"content":"Hi"},"appKey":"\#(h.appA.key.text)","options":{"push:sound":"bell.caf","push:badge":"2"}}"#))
        #expect(reply.status == 200 && reply.lines.first?["status"] as? String == "Accepted")
        await h.dispatcher.waitUntilIdle()
        let pushed = try #require(h.push.sent.first)
        #expect(pushed.content.presentation.sound == .named("bell.caf") && pushed.content.presentation.badge == 2)
        let bad = await h.submitJSON(GatewayHarness.request(token: h.accountA.productToken,
            #"{"from":"Shop","to":[{"number":"+31612345678"}],"body":{"content":"Hi"},"options":{"push:badge":"-1"}}"#))
        #expect(bad.lines.first?["messageErrorCode"] as? Int == 305)
        #expect((bad.lines.first?["messageDetails"] as? String)?.contains("options.push:badge") == true)
    }
}
