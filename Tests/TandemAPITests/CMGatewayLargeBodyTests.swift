import Testing
@testable import TandemAPI

/// Bodies over `CMBodyDecodingLane.inlineLimit` go through the decoding lane and come back with the same
/// answers as small ones: accepted and stored, or refused with the parser's clear error.
@Suite("CM gateway: large bodies")
struct CMGatewayLargeBodyTests {
    @Test("an unauthenticated XML body of 40,000 attributes is 400 with the attribute limit, nothing stored")
    func attributeBomb() async throws {
        let h = try await GatewayHarness()
        let xml = "<MESSAGES" + (0..<40_000).map { " a\($0)=\"\"" }.joined() + "><MSG/></MESSAGES>"
        #expect(xml.utf8.count > CMBodyDecodingLane.inlineLimit)
        let reply = await h.submitXML(xml)
        #expect(reply.status == 400)
        #expect(reply.text.hasPrefix("Error: ERROR malformed XML at byte "))
        #expect(reply.text.hasSuffix(": <MESSAGES> has more than 32 attributes"))
        #expect(try h.count("SELECT count(*) FROM messages") == 0)
        await h.close()
    }

    @Test("a JSON request over the inline limit is decoded on the lane and accepted")
    func largeValidJSON() async throws {
        let h = try await GatewayHarness()
        let numbers = (0..<1_000).map { "00316\(String(10_000_000 + $0))" }
        // 1,000 recipients and, as some clients send, a pretty-printed tail of whitespace.
        let request = GatewayHarness.request(token: h.accountA.productToken,
                                             CMGatewayServiceTests.msg(to: numbers, extra: #""reference":"large""#))
            + String(repeating: " ", count: 40_000)
        #expect(request.utf8.count > CMBodyDecodingLane.inlineLimit)
        let reply = await h.submitJSON(request)
        #expect(reply.status == 200)
        #expect(reply.json["errorCode"] as? Int == 0)
        #expect(reply.lines.count == 1_000)
        await h.close()
    }
}
