// libFuzzer harness: the device API's `Authorization: MAC kid="…" ts="…" mac="…"` header (`MACAuthentication.parse`),
// then what the service does with parsed credentials (app key, signature check, replay guard). Invariant: parsed
// credentials written back as a header parse to the same credentials. Built and run by scripts/fuzz.sh; not part
// of the SwiftPM package.
import TandemAPI
import TandemCore

private let replayGuard = ReplayGuard(window: .seconds(300))
private let signatures = SignatureCache(capacity: 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMACHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        guard case .success(let credentials) = MACAuthentication.parse(header) else { return }
        let written = "MAC kid=\"\(credentials.kid)\" ts=\"\(credentials.timestamp)\" mac=\"\(credentials.mac)\""
        guard case .success(let again) = MACAuthentication.parse(written), again == credentials else {
            fatalError("\(credentials) does not survive being written as \(written)")
        }
        _ = AppKey(credentials.kid)
        _ = MACAuthentication.matches(credentials, secret: "fuzz-secret", method: "PUT", targets: ["/v1.0/messages", "/v1.0/messages?a b"],
                                      hosts: ["api.example.com"], cache: signatures)
        _ = replayGuard.admit(credentials, fingerprint: size, nowSeconds: credentials.timestamp)
    }
}
