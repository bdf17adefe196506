import TandemCore
import Testing
@testable import TandemAPI

@Suite("PIN codec")
struct PinCodecTests {
    let codec = PinCodec(key: Array("0123456789abcdef0123456789abcdef".utf8))

    @Test("PINs are fixed-length digits, stable per nonce and key, different across nonces and keys")
    func derivation() {
        let pin = codec.pin(for: "nonce-1", length: 4)
        #expect(pin.count == 4 && pin.allSatisfy(\.isNumber))
        #expect(codec.pin(for: "nonce-1", length: 4) == pin)
        #expect(codec.pin(for: "nonce-1", length: 6).count == 6)
        let others = (2..<50).map { codec.pin(for: "nonce-\($0)", length: 4) }
        #expect(Set(others).count > 40)
        #expect(PinCodec(key: [1, 2, 3]).pin(for: "nonce-1", length: 8) != codec.pin(for: "nonce-1", length: 8))
        #expect(PinCodec.newNonce().count == 32 && PinCodec.newNonce() != PinCodec.newNonce())
    }

    @Test("the known value: HMAC-SHA256 read big-endian from the first 8 bytes, mod 10^n (checked with openssl)")
    func knownValue() {
        // printf 'abc' | openssl dgst -sha256 -hmac key → 9c196e32dc0175f8...; 0x9c196e32dc0175f8 % 10^6 = 216056
        #expect(PinCodec(key: Array("key".utf8)).pin(for: "abc", length: 6) == String(0x9c19_6e32_dc01_75f8 % 1_000_000 as UInt64).leftPadded(6))
    }

    @Test("matching ignores surrounding spaces and nothing else")
    func matching() throws {
        let challenge = PinChallenge(nonce: "n", msisdn: try #require(MSISDN("+31612345678")), issuedAt: Timestamp(milliseconds: 0),
                                     expiresAt: Timestamp(milliseconds: 1), attempts: 0)
        let pin = codec.pin(for: "n", length: 4)
        #expect(codec.matches(" \(pin) ", challenge: challenge, length: 4))
        #expect(!codec.matches(pin + "0", challenge: challenge, length: 4))
        #expect(!codec.matches("", challenge: challenge, length: 4))
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
