// libFuzzer harness: the configuration file decoder (`Configuration.load`: StrictJSON over JSONDecoder, then the
// environment overrides and secret references). Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
import Foundation
import TandemCore

/// The secrets the seed files name, so decoding goes on past their references (SMPP passwords are at most 8
/// characters, a PIN key at least 32).
private let environment: [String: String] = {
    var environment: [String: String] = [:]
    for name in ["K", "S", "MY_TOKEN", "VOICE_TOKEN", "TANDEM_PIN_KEY", "TANDEM_METRICS_TOKEN", "TANDEM_VOICE_TOKEN",
                 "KANNEL_PASSWORD", "KANNEL_DLR_TOKEN", "ACME_APNS_KEY"] {
        environment[name] = String(repeating: "k", count: 40)
    }
    for name in ["P", "SMPP_PASSWORD", "TANDEM_SMPP_PASSWORD"] { environment[name] = "secret" }
    return environment
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let bytes = Data(UnsafeBufferPointer(start: data, count: size))
        _ = try? Configuration.load(data: bytes, file: "fuzz.json", environment: environment)
    }
}
