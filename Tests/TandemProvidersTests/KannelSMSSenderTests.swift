import Foundation
import Testing
import TandemCore
@testable import TandemProviders

@Suite("Kannel sendsms")
struct KannelSMSSenderTests {
    static let reference = "0123456789abcdef"

    static func sms(_ body: String, forceUCS2: Bool = false, to number: String = "+31612345678",
                    validity: Duration = .seconds(7_200)) -> SMSRequest {
        SMSRequest(key: DeliveryKey(9), msisdn: MSISDN(number)!,
                   content: MessageContent(messageID: GUID("11111111-1111-4111-8111-111111111111")!, sender: "MyShop",
                                           body: body, reference: nil, forceUCS2: forceUCS2),
                   validity: validity)
    }

    static func settings(url: String = "http://127.0.0.1:13013/cgi-bin/sendsms", password: String = "s3cr&t +x",
                         dlrURL: String? = "http://tandem.test:8080/kannel/dlr", token: String? = "tok-1") -> KannelSMSSender.Settings {
        var settings = KannelSMSSender.Settings(sendSMSURL: url, username: "tandem", password: password, dlrURL: dlrURL)
        settings.dlrToken = token
        return settings
    }

    // MARK: - The request, without a network

    @Test("the sendsms query: every parameter encoded, the dlr-url with its escape codes encoded once more")
    func query() {
        let sms = Self.sms("Hello world & more")
        let query = KannelSMSSender.sendSMSQuery(settings: Self.settings(), from: "MyShop", to: sms.msisdn, text: sms.content.body,
                                                 forceUCS2: false, validity: sms.validity, reference: Self.reference)
        #expect(query == "username=tandem&password=s3cr%26t%20%2Bx&from=MyShop&to=%2B31612345678"
            + "&text=Hello%20world%20%26%20more&coding=0&charset=UTF-8&validity=120&dlr-mask=19"
            + "&dlr-url=http%3A%2F%2Ftandem.test%3A8080%2Fkannel%2Fdlr%3Fref%3D0123456789abcdef%26type%3D%25d"
            + "%26reply%3D%25A%26time%3D%25T%26to%3D%25p%26token%3Dtok-1")
    }

    @Test("a sender with punctuation or Latin letters goes as percent-encoded UTF-8 (Kannel's charset=UTF-8)",
          arguments: [("ACME corp.", "ACME%20corp."), ("B&B-Zürich", "B%26B-Z%C3%BCrich"), ("@£$", "%40%C2%A3%24")])
    func senderEncoding(sender: String, encoded: String) {
        let query = KannelSMSSender.sendSMSQuery(settings: Self.settings(), from: sender, to: MSISDN("+31612345678")!, text: "x",
                                                 forceUCS2: false, validity: nil, reference: nil)
        #expect(query.contains("&from=\(encoded)&to=%2B31612345678&"))
    }

    @Test("coding: GSM-7 text (extension characters included) is 0; anything else, or a forced UCS-2, is 2",
          arguments: [("Hello {name} €", false, "0"), ("Привет", false, "2"), ("Hello 😀", false, "2"), ("Hello", true, "2")])
    func coding(text: String, forceUCS2: Bool, expected: String) {
        let query = KannelSMSSender.sendSMSQuery(settings: Self.settings(), from: "A", to: MSISDN("+31612345678")!, text: text,
                                                 forceUCS2: forceUCS2, validity: nil, reference: Self.reference)
        #expect(query.contains("&coding=\(expected)&charset=UTF-8&"))
        #expect(query.contains("&text=\(QueryEncoding.encode(text))&"))
    }

    @Test("validity in whole minutes, rounded up, at least one", arguments: [
        (Duration.seconds(61), Int64(2)), (.zero, 1), (.milliseconds(1), 1), (.seconds(48 * 3_600), 2_880), (.seconds(60), 1),
    ])
    func validity(duration: Duration, minutes: Int64) {
        #expect(KannelSMSSender.minutesRoundedUp(duration) == minutes)
    }

    @Test("without a reference (a PIN), or without a dlrURL, no report is asked for; smsc routes when set")
    func noReports() {
        var settings = Self.settings()
        settings.smsc = "smpp-1"
        let pin = KannelSMSSender.sendSMSQuery(settings: settings, from: "Verify", to: MSISDN("+31612345678")!, text: "PIN 1234",
                                               forceUCS2: false, validity: nil, reference: nil)
        #expect(pin == "username=tandem&password=s3cr%26t%20%2Bx&from=Verify&to=%2B31612345678&text=PIN%201234&coding=0"
            + "&charset=UTF-8&smsc=smpp-1&dlr-mask=0")
        let noURL = KannelSMSSender.sendSMSQuery(settings: Self.settings(dlrURL: nil), from: "A", to: MSISDN("+31612345678")!,
                                                 text: "x", forceUCS2: false, validity: nil, reference: Self.reference)
        #expect(noURL.hasSuffix("&dlr-mask=0") && !noURL.contains("dlr-url"))
        #expect(KannelSMSSender.dlrURL(base: "http://t/dlr?app=1", reference: "r", token: nil)
            == "http://t/dlr?app=1&ref=r&type=%d&reply=%A&time=%T&to=%p")
        #expect(KannelDLRMask.finalStates.rawValue == 19 && KannelDLRMask.all.rawValue == 31)
    }

    @Test("settings that would break the dlr-url or the request are refused")
    func settingsRefused() throws {
        let client = try HTTPClient()
        let cases: [(KannelSMSSender.Settings, KannelSettingsError)] = [
            (Self.settings(url: "ftp://kannel/cgi-bin/sendsms"), .sendSMSURL),
            (Self.settings(dlrURL: "http://tandem/dlr?x=%41"), .dlrURL),
            (Self.settings(dlrURL: "http://tandem/dlr#part"), .dlrURL),
            (Self.settings(token: "has space"), .dlrToken),
            (Self.settings(token: "a&b"), .dlrToken),
        ]
        for (settings, expected) in cases {
            #expect(throws: expected) { _ = try KannelSMSSender(settings: settings, client: client) }
        }
    }

    // MARK: - Against a fake Kannel (Tests/peers/kannel_fake.py)

    private struct Fake {
        let peer: PeerProcess
        let client: HTTPClient

        init(dlrType: Int = 0, dlrReply: String = "") async throws {
            peer = try await PeerProcess.pythonPeer("kannel_fake.py", arguments: [
                "--username", "tandem", "--password", "s3cr&t +x", "--dlr-type", String(dlrType), "--dlr-reply", dlrReply])
            client = try HTTPClient(configuration: configuration())
        }

        var base: String { "http://127.0.0.1:\(peer.port)" }

        func sender(password: String = "s3cr&t +x", token: String? = "tok-1") throws -> KannelSMSSender {
            try KannelSMSSender(settings: settings(url: base + "/cgi-bin/sendsms", password: password, dlrURL: base + "/_dlr-sink",
                                                   token: token),
                                client: client, makeReference: { KannelSMSSenderTests.reference })
        }

        /// What the fake recorded: `sendsms` and `sink` queries as name → values, and its callbacks.
        func received() async throws -> (sendsms: [[String: [String]]], sink: [[String: [String]]], callbacks: [[String: Any]]) {
            let response = try await client.send(HTTPClientRequest(url: base + "/_received", version: .http1_1))
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            return (document["sendsms"] as? [[String: [String]]] ?? [], document["sink"] as? [[String: [String]]] ?? [],
                    document["callbacks"] as? [[String: Any]] ?? [])
        }
    }

    @Test("submit: 202 is submitted under Tandem's reference; Kannel got every parameter; its DLR call reaches the dlr-url")
    func submitAgainstFake() async throws {
        let reply = "id:7 sub:001 dlvrd:001 submit date:2611211000 done date:2611211001 stat:DELIVRD err:000 text:Grüße"
        let fake = try await Fake(dlrType: 1, dlrReply: reply)
        defer { fake.peer.stop() }
        let sms = Self.sms("Grüße aus Köln ✓")  // ✓ is not GSM-7: UCS-2
        let result = try await fake.sender().submit(sms)
        #expect(result == .submitted(references: [Self.reference]))

        let sent = try #require(try await fake.received().sendsms.first)
        #expect(sent == [
            "username": ["tandem"], "password": ["s3cr&t +x"], "from": ["MyShop"], "to": ["+31612345678"],
            "text": ["Grüße aus Köln ✓"], "coding": ["2"], "charset": ["UTF-8"], "validity": ["120"], "dlr-mask": ["19"],
            "dlr-url": ["\(fake.base)/_dlr-sink?ref=\(Self.reference)&type=%d&reply=%A&time=%T&to=%p&token=tok-1"],
        ])
        #expect(await eventually { ((try? await fake.received().sink) ?? []).count == 1 })
        let callback = try #require(try await fake.received().sink.first)
        #expect(callback["ref"] == [Self.reference])
        #expect(callback["type"] == ["1"])
        #expect(callback["reply"] == [reply])
        #expect(callback["to"] == ["+31612345678"])
        #expect(callback["token"] == ["tok-1"])
        #expect(callback["time"]?.first.flatMap { Int($0) } != nil)
    }

    @Test("a refusal is rejected with Kannel's status and words, never the password")
    func refusedAgainstFake() async throws {
        let fake = try await Fake()
        defer { fake.peer.stop() }
        let result = try await fake.sender(password: "wrong-password").submit(Self.sms("Hello"))
        guard case .rejected(let reason) = result else {
            Issue.record("expected a rejection, got \(result)")
            return
        }
        #expect(reason == "Kannel answered HTTP 403: Authorization failed for sendsms")
        #expect(try await fake.received().sendsms.count == 1)
    }

    @Test("a PIN goes with dlr-mask 0 and no dlr-url; a refusal throws without the PIN")
    func pinAgainstFake() async throws {
        let fake = try await Fake(dlrType: 1)
        defer { fake.peer.stop() }
        let pin = PinMessage(msisdn: MSISDN("+31612345678")!, pin: "4821", sender: "Verify", text: "Your PIN is 4821",
                             language: "en_US")
        try await fake.sender().sendPIN(pin)
        let sent = try #require(try await fake.received().sendsms.first)
        #expect(sent["dlr-mask"] == ["0"] && sent["dlr-url"] == nil && sent["validity"] == nil)
        #expect(sent["text"] == ["Your PIN is 4821"] && sent["from"] == ["Verify"] && sent["coding"] == ["0"])
        let refusing = try fake.sender(password: "nope")
        do {
            try await refusing.sendPIN(pin)
            Issue.record("expected the PIN to be refused")
        } catch {
            #expect(error.reason.contains("HTTP 403") && !error.reason.contains("4821"))
        }
    }

    @Test("a burst far beyond what the connections carry within one timeout: every SMS is submitted, none times out in a queue")
    func burst() async throws {
        let fake = try await Fake()
        defer { fake.peer.stop() }
        var settings = Self.settings(url: fake.base + "/cgi-bin/sendsms", dlrURL: fake.base + "/_dlr-sink")
        settings.connections = 2
        settings.timeout = .seconds(1)  // the fake answers each in ~40 ms (delayed ACK): the burst takes ~2 s
        let client = try HTTPClient(configuration: configuration { $0.maxConnectionsPerHost = 2 })
        defer { Task { await client.shutdown() } }
        let sender = try KannelSMSSender(settings: settings, client: client)
        let results = await withTaskGroup(of: SMSSubmitResult.self) { group in
            for _ in 0..<100 { group.addTask { await sender.submit(Self.sms("Hello")) } }
            return await group.reduce(into: [SMSSubmitResult]()) { $0.append($1) }
        }
        let rejected = results.filter { if case .rejected = $0 { true } else { false } }
        #expect(rejected.isEmpty, "\(rejected.count) rejected, e.g. \(rejected.first.map { "\($0)" } ?? "")")
        #expect(try await fake.received().sendsms.count == 100)
    }

    @Test("Kannel unreachable: tried connectAttempts times, then rejected")
    func unreachable() async throws {
        let fake = try await Fake()
        let port = fake.peer.port
        fake.peer.stop()
        var settings = Self.settings(url: "http://127.0.0.1:\(port)/cgi-bin/sendsms")
        settings.connectAttempts = 2
        settings.retryDelay = .milliseconds(1)
        let sender = try KannelSMSSender(settings: settings, client: fake.client)
        let result = await sender.submit(Self.sms("Hello"))
        guard case .rejected(let reason) = result else {
            Issue.record("expected a rejection, got \(result)")
            return
        }
        #expect(reason.hasPrefix("Kannel unreachable: connect failed"))
    }
}
