import Testing
import TandemCore
@testable import TandemProviders

@Suite("FCM answers")
struct FCMOutcomeTests {
    /// Google's error body with an FCM error code and, optionally, a field violation.
    static func body(_ code: Int, _ status: String, _ errorCode: String?, field: String? = nil,
                     message: String = "m") -> [UInt8] {
        var details: [String] = []
        if let errorCode { details.append(#"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(errorCode)"}"#) }
        if let field { details.append(#"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)","description":"d"}]}"#) }
        return Array(#"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)","details":[\#(details.joined(separator: ","))]}}"#.utf8)
    }

    enum Kind: Sendable { case accepted, tokenDead, unauthenticated, retry, failed }

    static let table: [(Int, [UInt8], Kind)] = [
        (200, Array(#"{"name":"projects/p/messages/1"}"#.utf8), .accepted),
        (404, body(404, "NOT_FOUND", "UNREGISTERED"), .tokenDead),
        (400, body(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", field: "message.token"), .tokenDead),
        (400, body(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT",
                   message: "The registration token is not a valid FCM registration token"), .tokenDead),
        (400, body(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", field: "message.android.ttl"), .failed),
        (429, body(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"), .retry),
        (503, body(503, "UNAVAILABLE", "UNAVAILABLE"), .retry),
        (500, body(500, "INTERNAL", "INTERNAL"), .retry),
        (403, body(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"), .failed),
        (401, body(401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR"), .failed),
        (401, body(401, "UNAUTHENTICATED", nil), .unauthenticated),
        (401, [], .unauthenticated),
        (502, Array("<html>bad gateway</html>".utf8), .retry),
        (404, body(404, "NOT_FOUND", nil), .failed),
        (400, [], .failed),
    ]

    @Test("each error code maps as the issue says", arguments: table)
    func mapping(status: Int, body: [UInt8], expected: Kind) {
        let kind: Kind = switch FCMOutcome(status: status, body: body, retryAfter: nil) {
        case .accepted: .accepted
        case .tokenDead: .tokenDead
        case .unauthenticated: .unauthenticated
        case .retry: .retry
        case .failed: .failed
        }
        #expect(kind == expected)
    }

    @Test("Retry-After is carried and the reason names the code")
    func retryAfter() {
        #expect(FCMOutcome(status: 429, body: Self.body(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"), retryAfter: "10")
                == .retry(reason: "HTTP 429 QUOTA_EXCEEDED: m", retryAfter: .seconds(10)))
    }

    @Test("the token endpoint's answers: a token, a refusal, something to retry")
    func tokenResponses() {
        func response(_ status: Int, _ body: String, _ headers: [HTTPClientHeader] = []) -> HTTPClientResponse {
            HTTPClientResponse(status: status, headers: headers, body: Array(body.utf8), version: .http2)
        }
        #expect(FCMTokenFetcher.token(from: response(200, #"{"access_token":"ya29.x","expires_in":3599,"token_type":"Bearer"}"#))
                == .success(FCMAccessToken(value: "ya29.x", lifetime: .seconds(3_599))))
        #expect(FCMTokenFetcher.token(from: response(400, #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#))
                == .failure(.refused(status: 400, reason: "invalid_grant: Invalid JWT Signature.")))
        #expect(FCMTokenFetcher.token(from: response(503, "", [HTTPClientHeader("retry-after", "4")]))
                == .failure(.unavailable("token endpoint: HTTP 503", retryAfter: .seconds(4))))
        #expect(FCMTokenFetcher.token(from: response(200, "not json"))
                == .failure(.unavailable("token endpoint: unreadable 200 response", retryAfter: nil)))
    }
}
