// libFuzzer harness: a request-target as the HTTP server reads it (`RequestTarget`: path segments and percent
// decoding; `QueryParameters`: the form-encoded query), then the CM gateway's GET form (`CMCodec.decodeQuery`).
// Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
@testable import TandemAPI
@testable import TandemHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let target = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        let request = Request(method: .GET, target: target)
        _ = request.decodedTarget
        let parsed = RequestTarget(target)
        guard parsed.path == request.path else { fatalError("the path depends on how the request is made") }
        // Origin-form: the segments are the path's pieces between slashes, each decoded on its own.
        if target.utf8.first == UInt8(ascii: "/") {
            guard "/" + parsed.segments.joined(separator: "/") == parsed.path else { fatalError("segments \(parsed.segments) ≠ path \(parsed.path)") }
        }
        guard QueryParameters(rawQuery: String(parsed.rawQuery)) == request.query else { fatalError("the query parses differently twice") }
        _ = try? CMCodec.decodeQuery(request.query.map { (name: $0.name, value: $0.value) })
    }
}
