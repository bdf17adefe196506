// libFuzzer harness: cospace's two request bodies — `POST /api/push` (`CospacePushCodec`, the documented
// patterns) and `POST /v1.0/push-events` (`CospaceEvent`) — and what an accepted event becomes (its data-only
// presentation's custom data). Built and run by scripts/fuzz.sh; not part of the SwiftPM package.
import TandemAPI
import TandemCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCospace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let body = Array(UnsafeBufferPointer(start: data, count: size))
        switch CospacePushCodec.decode(body) {
        case .success(.add(.gcm(let id))), .success(.delete(let id, .android)):
            guard CospacePatterns.isRegistrationID(id.text) else { fatalError("registration id \(id.text) does not match") }
        case .success(.add(.apns(let token, let applicationID, _, let topic))):
            guard CospacePatterns.isDeviceToken(token.text), token.text == token.text.lowercased(),
                  CospacePatterns.isApplicationID(applicationID), topic.map(CospacePatterns.isAPNsTopic) ?? true else {
                fatalError("an APNs add that breaks its patterns was accepted")
            }
        case .success(.delete(let token, _)):
            guard CospacePatterns.isDeviceToken(token.text) else { fatalError("device token \(token.text) does not match") }
        case .failure(let refusal):
            _ = refusal.document.compactText
        }
        switch CospaceEvent.decode(body) {
        case .success(let event):
            let data = event.presentation.customData
            guard event.presentation.dataOnly == true, data.count == event.data.count + 2,
                  Set(data.map(\.key)).count == data.count else { fatalError("the event's custom data is not owner, message and its data") }
        case .failure(let refusal):
            _ = refusal.document.compactText
        }
    }
}
