// libFuzzer harness: the CM gateway's JSON request codec (`CMCodec.decodeJSON`: JSONParser, then the message
// decoder into CMSubmission). Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
import TandemAPI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCMJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        if let submission = try? CMCodec.decodeJSON(bytes) {
            guard submission.format == .json else { fatalError("a JSON body decoded as \(submission.format)") }
        }
    }
}
