// libFuzzer harness: TIBCO BWMI's request bodies — `PUT`/`DELETE /devices`, `PUT /acks` — and Tandem's enterprise
// `POST /bwmi/{appKey}/notifications` (`BWMICodec`), with the limits an accepted body must keep and the
// `{"error":…}` body a refused one is answered with. Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
@testable import TandemAPI
import TandemCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBWMI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let body = Array(UnsafeBufferPointer(start: data, count: size))
        do throws(BWMICodec.Problem) {
            let device = try BWMICodec.device(body)
            guard device.platform == .iOS || device.platform == .android else { fatalError("device of platform \(device.platform)") }
        } catch {
            refused(error)
        }
        do throws(BWMICodec.Problem) {
            _ = try BWMICodec.ack(body)
        } catch {
            refused(error)
        }
        do throws(BWMICodec.Problem) {
            let notification = try BWMICodec.notification(body)
            guard !notification.targets.isEmpty, notification.targets.count <= BWMICodec.maximumTargets,
                  !notification.text.isEmpty, notification.text.utf8.count <= BWMICodec.maximumTextBytes,
                  (notification.bid?.utf8.count ?? 0) <= BWMICodec.maximumFieldBytes,
                  (notification.sound?.utf8.count ?? 0) <= BWMICodec.maximumFieldBytes else {
                fatalError("an accepted notification breaks the codec's limits")
            }
        } catch {
            refused(error)
        }
    }
}

/// A refusal names its problem in `{"error":"…"}`.
private func refused(_ problem: BWMICodec.Problem) {
    guard !problem.message.isEmpty, case .success(.object(let members)) = JSONParser.parse(BWMICodec.error(problem.message)),
          members.count == 1, members[0].key == "error" else {
        fatalError("refusal \(problem.message) is not {\"error\": …}")
    }
}
