import Testing
@testable import TandemAPI

@Suite("MAC authentication")
struct MACAuthenticationTests {
    @Test("the spec's independent vector and our own, cross-checked with openssl dgst -sha1 -hmac")
    func vectors() {
        #expect(MACAuthentication.signature(secret: "s3cr3t", method: "PUT", target: "/v1.0/messages",
                                            host: "hybridmessagingapi.cm.nl", timestamp: 1_379_333_669)
                == "V5HzW8KO87hJUCtiPp0G+yLIve0=")
        #expect(MACAuthentication.signature(secret: "Zm9vYmFyLXNlY3JldC0xMjM0NTY3ODkwYWJjZGVmZ2hp", method: "GET",
                                            target: "/v1.0/messages?$filter=Status eq 'Sent'", host: "localhost:8080",
                                            timestamp: 1_790_000_000) == "i1f3zMpwL+d9mAcscXoKNDE7jH8=")
        #expect(MACAuthentication.signature(secret: "another secret", method: "POST", target: "/v1.0/deviceregistrations",
                                            host: "api.example.com", timestamp: 1_790_000_123) == "8Ws/VauQBH7psDSwMxCTkm7QfQU=")
    }

    @Test("headers parse in any parameter order, with commas or spaces, scheme in any casing")
    func parsing() throws {
        let expected = MACAuthentication.Credentials(kid: "k", timestamp: 12, mac: "m=")
        for header in [#"MAC kid="k" ts="12" mac="m=""#, #"mac ts="12", mac="m=", kid="k""#, #"  Mac kid="k",ts="12",mac="m="  "#] {
            #expect(try MACAuthentication.parse(header).get() == expected, "\(header)")
        }
    }

    @Test("missing or garbled headers are refused with a reason", arguments: [
        "", "Bearer abc", "MAC", #"MAC kid="k" ts="12""#, #"MAC kid="k" ts="x" mac="m""#, #"MAC kid="k" ts="-1" mac="m""#,
        #"MAC kid=k ts="12" mac="m""#, #"MAC kid="k" ts="12" mac="m" kid="j""#, #"MAC kid="k ts="12" mac="m""#,
        #"MAC kid="" ts="12" mac="m""#, #"MAC kid="k" ts="12" mac="""#,
    ])
    func garbled(header: String) {
        guard case .failure(.malformed) = MACAuthentication.parse(header) else {
            Issue.record("accepted \(header)")
            return
        }
    }

    @Test("a signature over the decoded target or a configured host verifies; anything else does not")
    func targetsAndHosts() throws {
        let mac = MACAuthentication.signature(secret: "s", method: "GET", target: "/v1.0/messages?$filter=Sender eq 'A B'",
                                              host: "sdk.example.com", timestamp: 100)
        let credentials = MACAuthentication.Credentials(kid: "k", timestamp: 100, mac: mac)
        let targets = ["/v1.0/messages?$filter=Sender%20eq%20'A%20B'", "/v1.0/messages?$filter=Sender eq 'A B'"]
        #expect(MACAuthentication.matches(credentials, secret: "s", method: "GET", targets: targets,
                                          hosts: ["127.0.0.1:8080", "sdk.example.com"]))
        #expect(!MACAuthentication.matches(credentials, secret: "s", method: "GET", targets: targets, hosts: ["127.0.0.1:8080"]))
        #expect(!MACAuthentication.matches(credentials, secret: "s", method: "GET", targets: [targets[0]], hosts: ["sdk.example.com"]))
        #expect(!MACAuthentication.matches(credentials, secret: "t", method: "GET", targets: targets, hosts: ["sdk.example.com"]))
        #expect(!MACAuthentication.matches(credentials, secret: "s", method: "PUT", targets: targets, hosts: ["sdk.example.com"]))
    }

    @Test("only the canonical base64 of the right MAC verifies: another spelling of the same bytes, or garbage, does not")
    func canonicalMACOnly() throws {
        let mac = MACAuthentication.signature(secret: "s3cr3t", method: "PUT", target: "/v1.0/messages",
                                              host: "hybridmessagingapi.cm.nl", timestamp: 1_379_333_669)
        func verifies(_ text: String) -> Bool {
            MACAuthentication.matches(MACAuthentication.Credentials(kid: "k", timestamp: 1_379_333_669, mac: text), secret: "s3cr3t",
                                      method: "PUT", targets: ["/v1.0/messages"], hosts: ["hybridmessagingapi.cm.nl"])
        }
        #expect(verifies(mac))
        // 20 bytes: 27 characters and one '='; the 27th carries 4 bits and 2 zero bits. Setting those 2 bits
        // spells the same bytes differently (a lenient decoder accepts it).
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var characters = Array(mac)
        let last = try #require(alphabet.firstIndex(of: characters[26]))
        #expect(last % 4 == 0)
        characters[26] = alphabet[last + 1]
        #expect(!verifies(String(characters)))
        #expect(!verifies(String(mac.dropLast())))      // padding missing
        #expect(!verifies(mac + "AAAA"))
        #expect(!verifies("not base64 at all"))
        #expect(!verifies(""))
    }

    @Test("with a cache: what verified is remembered and verifies again; a wrong mac, another secret, target, host, second or method does not")
    func signatureCache() throws {
        let cache = SignatureCache()
        let mac = MACAuthentication.signature(secret: "s3cr3t", method: "PUT", target: "/v1.0/messages",
                                              host: "hybridmessagingapi.cm.nl", timestamp: 1_379_333_669)
        func verifies(_ text: String, secret: String = "s3cr3t", method: String = "PUT", target: String = "/v1.0/messages",
                      host: String = "hybridmessagingapi.cm.nl", timestamp: Int64 = 1_379_333_669) -> Bool {
            MACAuthentication.matches(MACAuthentication.Credentials(kid: "k", timestamp: timestamp, mac: text), secret: secret,
                                      method: method, targets: [target], hosts: ["api.example.com", host], cache: cache)
        }
        // Refusals are not remembered: forged requests cannot fill the cache.
        #expect(!verifies("V5HzW8KO87hJUCtiPp0G+yLIve0A"))
        #expect(cache.count == 0)
        #expect(verifies(mac))
        #expect(cache.count == 1)
        #expect(verifies(mac))  // from the cache
        #expect(cache.count == 1)
        // The remembered signature is compared, not just found: a wrong mac for a known combination is refused.
        var characters = Array(mac)
        characters[0] = characters[0] == "A" ? "B" : "A"
        #expect(!verifies(String(characters)))
        #expect(!verifies(String(mac.dropLast())))
        #expect(!verifies(mac + "AAAA"))
        #expect(!verifies(""))
        // A rotated secret, or any other signed part, finds nothing remembered and computes (and refuses).
        #expect(!verifies(mac, secret: "rotated"))
        #expect(!verifies(mac, method: "GET"))
        #expect(!verifies(mac, target: "/v1.0/deviceregistrations"))
        #expect(!verifies(mac, host: "other.example.com"))
        #expect(!verifies(mac, timestamp: 1_379_333_670))
        #expect(cache.count == 1)
        // Bounded: a full cache starts over.
        let small = SignatureCache(capacity: 2)
        for timestamp in Int64(1)...3 {
            let signature = MACAuthentication.signature(secret: "s", method: "PUT", target: "/t", host: "h", timestamp: timestamp)
            #expect(MACAuthentication.matches(MACAuthentication.Credentials(kid: "k", timestamp: timestamp, mac: signature), secret: "s",
                                              method: "PUT", targets: ["/t"], hosts: ["h"], cache: small))
        }
        #expect(small.count == 1)
        // A long request-target (a long query) verifies but is not remembered.
        let long = "/v1.0/messages?$filter=" + String(repeating: "x", count: 300)
        let longMAC = MACAuthentication.signature(secret: "s", method: "GET", target: long, host: "h", timestamp: 5)
        #expect(MACAuthentication.matches(MACAuthentication.Credentials(kid: "k", timestamp: 5, mac: longMAC), secret: "s",
                                          method: "GET", targets: [long], hosts: ["h"], cache: small))
        #expect(small.count == 1)
    }

    @Test("the window is ±300 s by default and a request is accepted once inside it")
    func windowAndReplay() {
        let replay = ReplayGuard(window: .seconds(300))
        let at = MACAuthentication.Credentials(kid: "k", timestamp: 1_000, mac: "m")
        #expect(replay.admit(at, fingerprint: "device-1", nowSeconds: 1_301) == .outsideWindow)
        #expect(replay.admit(at, fingerprint: "device-1", nowSeconds: 699) == .outsideWindow)
        #expect(replay.admit(at, fingerprint: "device-1", nowSeconds: 1_300) == nil)
        #expect(replay.admit(at, fingerprint: "device-1", nowSeconds: 1_000) == .replayed)
        #expect(replay.admit(MACAuthentication.Credentials(kid: "k", timestamp: 1_000, mac: "other"), fingerprint: "device-1",
                             nowSeconds: 1_000) == nil)
        #expect(replay.admit(MACAuthentication.Credentials(kid: "j", timestamp: 1_000, mac: "m"), fingerprint: "device-1",
                             nowSeconds: 1_000) == nil)
        // The same signature on another install's request (or another body) is a different request.
        #expect(replay.admit(at, fingerprint: "device-2", nowSeconds: 1_000) == nil)
        #expect(replay.count == 4)
        // Long after, the memory is purged and the old entry cannot come back in (its ts is outside the window).
        #expect(replay.admit(at, fingerprint: "device-1", nowSeconds: 5_000) == .outsideWindow)
        #expect(replay.admit(MACAuthentication.Credentials(kid: "k", timestamp: 5_000, mac: "m"), fingerprint: "device-1",
                             nowSeconds: 5_000) == nil)
        #expect(replay.count == 1)
    }
}
