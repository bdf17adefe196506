import Foundation
import Testing
import TandemCore
@testable import TandemProviders

/// KannelSMSSender against the real thing: Debian's `kannel` (bearerbox and smsbox) in front of an SMSC
/// made with `smpp34`'s server (`Tests/peers/kannel_stack.py`). Skipped where the package is not installed.
@Suite("Kannel bearerbox and smsbox", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/bearerbox")
    && FileManager.default.isExecutableFile(atPath: "/usr/sbin/smsbox"), "Debian's kannel package is not installed"))
struct KannelRealStackTests {
    @Test("an SMS goes through smsbox and bearerbox to the SMSC as UCS-2; each receipt comes back to the dlr-url",
          arguments: [("+31612345678", "1", "stat:DELIVRD"), ("+31612345000", "2", "stat:UNDELIV"),
                      ("+31612345001", "2", "stat:EXPIRED")])
    func roundTrip(number: String, dlrType: String, stat: String) async throws {
        let stack = try await PeerProcess.pythonPeer("kannel_stack.py")
        defer { stack.stop() }
        let sink = try #require(stack.ports.dropFirst().first)
        let client = try HTTPClient(configuration: configuration())
        var settings = KannelSMSSender.Settings(sendSMSURL: "http://127.0.0.1:\(stack.port)/cgi-bin/sendsms", username: "tandem",
                                                password: "secret", dlrURL: "http://127.0.0.1:\(sink)/kannel/dlr")
        settings.dlrToken = "tok-1"
        let sender = try KannelSMSSender(settings: settings, client: client)
        let body = "Grüße ✓"
        let result = await sender.submit(SMSRequest(
            key: DeliveryKey(1), msisdn: MSISDN(number)!,
            content: MessageContent(messageID: GUID("11111111-1111-4111-8111-111111111111")!, sender: "MyShop", body: body,
                                    reference: nil),
            validity: .seconds(3_600)))
        guard case .submitted(let references) = result, let reference = references.first else {
            Issue.record("expected a submission, got \(result)")
            return
        }

        func received() async -> (submits: [[String: Any]], callbacks: [[String: Any]]) {
            guard let response = try? await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(sink)/_received")),
                  let document = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return ([], []) }
            return (document["submits"] as? [[String: Any]] ?? [], document["callbacks"] as? [[String: Any]] ?? [])
        }
        #expect(await eventually { await !received().callbacks.isEmpty })
        let (submits, callbacks) = await received()
        let submit = try #require(submits.first)
        #expect(submit["destination"] as? String == String(number.dropFirst()))
        #expect(submit["data_coding"] as? Int == 8)
        #expect(submit["registered_delivery"] as? Int == 1)
        let ucs2 = body.utf16.map { String(format: "%04x", $0) }.joined()
        #expect(submit["short_message"] as? String == ucs2)
        let callback = try #require(callbacks.first)
        #expect(callback["path"] as? String == "/kannel/dlr")
        let query = try #require(callback["query"] as? [String: [String]])
        #expect(query["ref"] == [reference])
        #expect(query["type"] == [dlrType])
        #expect(query["to"] == [number])
        #expect(query["token"] == ["tok-1"])
        #expect(query["reply"]?.first?.contains(stat) == true)
        #expect(query["reply"]?.first?.contains("id:\(submit["message_id"] as? String ?? "?")") == true)
    }
}
