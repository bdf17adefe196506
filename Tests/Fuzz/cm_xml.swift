// libFuzzer harness: the CM gateway's XML request codec (`CMCodec.decodeXML`: MiniXML, then the message decoder
// into CMSubmission). Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
import TandemAPI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCMXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        if let submission = try? CMCodec.decodeXML(bytes) {
            guard submission.format == .xml else { fatalError("an XML body decoded as \(submission.format)") }
        }
    }
}
