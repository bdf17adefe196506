import Foundation
import TandemCore

/// What one FCM answer means for the push, decided in one place from the HTTP status and Google's error
/// body (`{"error":{"code","message","status","details":[{"@type":"…google.firebase.fcm.v1.FcmError",
/// "errorCode":…}, {"@type":"…google.rpc.BadRequest","fieldViolations":[{"field":"message.token"}]}]}}`).
///
/// The FCM `errorCode` decides when present, else the canonical `status`, else the HTTP status:
///
/// | error | outcome |
/// |---|---|
/// | 2xx | accepted |
/// | `UNREGISTERED`; `INVALID_ARGUMENT` about the token | token dead |
/// | `QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`; other 429, 5xx | retry, honouring `Retry-After` |
/// | `UNAUTHENTICATED` (our access token) | fetch a new access token, send once more |
/// | `SENDER_ID_MISMATCH`, `THIRD_PARTY_AUTH_ERROR`, other `INVALID_ARGUMENT`, any other | failed |
enum FCMOutcome: Sendable, Hashable {
    case accepted
    case tokenDead(reason: String)
    case unauthenticated
    case retry(reason: String, retryAfter: Duration?)
    case failed(reason: String)

    init(status: Int, body: [UInt8], retryAfter: String?) {
        if (200..<300).contains(status) {
            self = .accepted
            return
        }
        let error = (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.error
        let details = error?.details ?? []
        let fcmCode = details.first { $0.type?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?.errorCode
        let code = fcmCode ?? error?.status
        let reason = "HTTP \(status)" + (code.map { " " + $0 } ?? "") + (error?.message.map { ": " + $0 } ?? "")
        let wait = PushRetryPolicy.retryAfter(retryAfter)
        switch code {
        case "UNREGISTERED":
            self = .tokenDead(reason: reason)
        case "INVALID_ARGUMENT":
            let aboutToken = details.contains { $0.fieldViolations?.contains { $0.field == "message.token" } == true }
                || error?.message?.localizedCaseInsensitiveContains("registration token") == true
            self = aboutToken ? .tokenDead(reason: reason) : .failed(reason: reason)
        case "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL":
            self = .retry(reason: reason, retryAfter: wait)
        case "SENDER_ID_MISMATCH", "THIRD_PARTY_AUTH_ERROR":
            self = .failed(reason: reason)
        case "UNAUTHENTICATED":
            self = .unauthenticated
        default:
            switch status {
            case 401: self = .unauthenticated
            case 429, 500...599: self = .retry(reason: reason, retryAfter: wait)
            default: self = .failed(reason: reason)
            }
        }
    }

    private struct ErrorBody: Decodable {
        let error: Problem?
    }

    private struct Problem: Decodable {
        let code: Int?
        let message: String?
        let status: String?
        let details: [Detail]?
    }

    private struct Detail: Decodable {
        let type: String?
        let errorCode: String?
        let fieldViolations: [Violation]?

        enum CodingKeys: String, CodingKey {
            case type = "@type", errorCode, fieldViolations
        }
    }

    private struct Violation: Decodable {
        let field: String?
        let description: String?
    }
}
