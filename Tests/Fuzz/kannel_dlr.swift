// libFuzzer harness: Kannel's DLR callback query (`QueryParameters`, then `KannelDLRCodec.decode` with and without
// a configured token). Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
@testable import TandemAPI
import TandemHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKannelDLR(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let query = QueryParameters(rawQuery: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
        for token in [nil, "s3cret"] as [String?] {
            if case .success(let dlr) = KannelDLRCodec.decode(query, expectedToken: token) {
                guard dlr.meaning != nil else { fatalError("an accepted DLR has no meaning") }
                _ = dlr.detail
                _ = dlr.replySaysExpired
            }
        }
    }
}
