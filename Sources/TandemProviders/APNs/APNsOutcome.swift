import Foundation
import TandemCore

/// What one APNs answer means for the push, decided in one place from the status and the `reason` of
/// Apple's error body (`{"reason":"BadDeviceToken"}`).
///
/// | answer | outcome |
/// |---|---|
/// | 200 | accepted |
/// | 410 (`Unregistered`, `ExpiredToken`); 400 `BadDeviceToken`, `DeviceTokenNotForTopic` | token dead |
/// | 403 `ExpiredProviderToken` | sign a new provider token, send once more |
/// | `InvalidProviderToken`, `MissingProviderToken`, `TooManyProviderTokenUpdates` (403/429) | failed: the app's key setup is wrong |
/// | 429, 5xx | retry with backoff |
/// | any other status | failed, with the reason |
enum APNsOutcome: Sendable, Hashable {
    case accepted
    case tokenDead(reason: String)
    case providerTokenExpired
    case providerTokenRejected(reason: String)
    case retry(reason: String, retryAfter: Duration?)
    case failed(reason: String)

    init(status: Int, body: [UInt8], retryAfter: String?) {
        let reason = Self.reason(in: body)
        let described = "HTTP \(status)" + (reason.map { " " + $0 } ?? "")
        switch (status, reason) {
        case (200, _):
            self = .accepted
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            self = .tokenDead(reason: reason ?? described)
        case (403, "ExpiredProviderToken"):
            self = .providerTokenExpired
        case (_, "InvalidProviderToken"), (_, "MissingProviderToken"), (_, "TooManyProviderTokenUpdates"):
            self = .providerTokenRejected(reason: reason ?? described)
        case (429, _), (500...599, _):
            self = .retry(reason: described, retryAfter: PushRetryPolicy.retryAfter(retryAfter))
        default:
            self = .failed(reason: described)
        }
    }

    /// Apple's `reason`, or nil when the body is not its error JSON.
    static func reason(in body: [UInt8]) -> String? {
        struct ErrorBody: Decodable { let reason: String? }
        guard !body.isEmpty else { return nil }
        return (try? JSONDecoder().decode(ErrorBody.self, from: Data(body)))?.reason
    }
}
