// libFuzzer harness: what the device API reads from `User-Agent` (`UserAgent.platform`, `UserAgent.language`).
// Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
@testable import TandemAPI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUserAgent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let agent = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        _ = UserAgent.platform(agent)
        if let language = UserAgent.language(agent) {
            guard language.utf8.count == 5 && agent.contains(language) else { fatalError("language \(language) is not a word of the agent") }
        }
    }
}
