// libFuzzer harness: the policy file decoder (`Policy` through StrictJSON, as `PolicySet.decode` reads each of
// Policies/*.json). Invariant: a policy that decodes encodes to JSON that decodes to the same policy (the store
// keeps policies in that encoded form). Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
import Foundation
import TandemCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolicy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let bytes = Data(UnsafeBufferPointer(start: data, count: size))
        guard let policy = try? StrictJSON.decode(Policy.self, from: bytes, file: "fuzz.json") else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let encoded = try? encoder.encode(policy) else { fatalError("a decoded policy does not encode: \(policy)") }
        do {
            let again = try StrictJSON.decode(Policy.self, from: encoded, file: "encoded.json")
            guard again == policy else { fatalError("round trip changed the policy: \(policy) → \(again)") }
        } catch {
            fatalError("a decoded policy's encoding does not decode: \(error): \(String(decoding: encoded, as: UTF8.self))")
        }
    }
}
