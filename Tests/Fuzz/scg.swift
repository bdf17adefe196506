// libFuzzer harness: SCG's two request bodies — `POST /messaging/message_requests` (`SCGCodec.decodeMessageRequest`,
// with its `options` map) and the state change `POST /messaging/message_requests/{id}` — the intake command an
// accepted request becomes, and the JSON error body a refused one is answered with. Built and run by
// scripts/fuzz.sh; not part of the SwiftPM package.
@testable import TandemAPI
import TandemCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSCG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let body = Array(UnsafeBufferPointer(start: data, count: size))
        do throws(SCGError) {
            let request = try SCGCodec.decodeMessageRequest(body)
            guard request.to.count == request.recipients.count, !request.recipients.isEmpty,
                  request.recipients.count <= SCGCodec.maximumRecipients else {
                fatalError("an accepted request's addresses and recipients disagree")
            }
            let command = request.command
            guard command.recipients == request.recipients, command.body == request.body,
                  command.presentation == request.presentation else { fatalError("the command lost part of the request") }
            guard case .success = JSONParser.parse(Array(request.extra.utf8)) else { fatalError("extra is not JSON: \(request.extra)") }
        } catch {
            refused(error)
        }
        do throws(SCGError) {
            _ = try SCGCodec.decodeStateChange(body)
        } catch {
            refused(error)
        }
    }
}

/// A refusal is a client error whose body is one JSON object.
private func refused(_ error: SCGError) {
    guard (400..<500).contains(error.status), case .success(.object) = JSONParser.parse(error.body) else {
        fatalError("refusal \(error) is not a 4xx with a JSON object body")
    }
}
