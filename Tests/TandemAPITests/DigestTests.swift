import TandemCore
import TandemCrypto
import Testing

@Suite("Digest: HMAC through kept keyed contexts")
struct DigestTests {
    static func hmacHex(_ algorithm: Digest.Algorithm, _ key: String, _ message: String) -> String {
        Digest.hex(Digest.hmac(algorithm, key: Array(key.utf8), message: Array(message.utf8)))
    }

    @Test("RFC 2202 and RFC 4231 vectors, the empty key and message, and the same key again (the kept context is not consumed)")
    func vectors() {
        for _ in 0..<3 {
            #expect(Self.hmacHex(.sha1, "Jefe", "what do ya want for nothing?") == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
            #expect(Self.hmacHex(.sha256, "Jefe", "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
            #expect(Self.hmacHex(.sha1, "", "") == "fbdb1d1b18aa6c08324b7d64b71fb76370690e1d")
            #expect(Self.hmacHex(.sha256, "", "") == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        }
        // A key longer than the block size is hashed first (RFC 4231 test case 6).
        #expect(Digest.hex(Digest.hmac(.sha256, key: [UInt8](repeating: 0xAA, count: 131),
                                       message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("many keys from many tasks at once: every answer is the one computed alone")
    func concurrentKeys() async {
        let keys = (0..<2_000).map { "key-\($0)" }  // more than the kept contexts' bound
        let expected = keys.map { Self.hmacHex(.sha1, $0, "message") }
        let results = await withTaskGroup(of: (Int, String).self) { group in
            for (index, key) in keys.enumerated() {
                group.addTask { (index, Self.hmacHex(.sha1, key, "message")) }
            }
            var results = [String](repeating: "", count: keys.count)
            for await (index, value) in group { results[index] = value }
            return results
        }
        #expect(results == expected)
    }

    @Test("one key from many tasks at once, messages of every length: contexts given back and keyed again give the same answers")
    func reusedContexts() async {
        let messages = (0..<64).map { String(repeating: "m", count: $0 * 7) }
        let expected = messages.map { Self.hmacHex(.sha1, "shared secret", $0) }
        let results = await withTaskGroup(of: (Int, String).self) { group in
            for round in 0..<32 {
                for (index, message) in messages.enumerated() where (index + round) % 4 == 0 {
                    group.addTask { (index, Self.hmacHex(.sha1, "shared secret", message)) }
                }
            }
            var results: [Int: Set<String>] = [:]
            for await (index, value) in group { results[index, default: []].insert(value) }
            return results
        }
        #expect(results.count == messages.count)
        for (index, values) in results { #expect(values == [expected[index]]) }
    }
}

@Suite("Secure random generator")
struct SecureRandomGeneratorTests {
    @Test("draws are distinct and use every bit; message ids from it are unique and time-ordered")
    func draws() {
        var generator = SecureRandom.Generator()
        let draws = (0..<5_000).map { _ in generator.next() }
        #expect(Set(draws).count == draws.count)
        #expect(draws.reduce(0, |) == .max && draws.reduce(.max, &) == 0)
        let ids = (0..<2_000).map { GUID.timeOrdered(unixMilliseconds: 1_790_000_000_000 + Int64($0), using: &generator) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.map(\.text) == ids.map(\.text).sorted())
    }
}
