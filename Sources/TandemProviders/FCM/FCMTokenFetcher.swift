import Foundation
import TandemCore
import TandemCrypto

/// Fetches an OAuth2 access token for a service account (RFC 7523 JWT bearer grant): posts an RS256 JWT
/// assertion — `iss` the client e-mail, `scope` FCM's, `aud` the token URL, valid for an hour — and reads
/// `{"access_token","expires_in","token_type"}`.
struct FCMTokenFetcher: Sendable {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    static let assertionLifetime: Duration = .seconds(3_600)

    let account: FCMServiceAccount
    let tokenURL: String
    let client: HTTPClient
    let timeout: Duration

    func fetch(now: Timestamp) async -> Result<FCMAccessToken, FCMTokenError> {
        let assertion: String
        do {
            assertion = try Self.assertion(for: account, audience: tokenURL, now: now)
        } catch {
            return .failure(.key(error))
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = HTTPClientRequest(method: .post, url: tokenURL,
                                        headers: [HTTPClientHeader("content-type", "application/x-www-form-urlencoded")],
                                        body: Array(form.utf8), timeout: timeout, version: .http2)
        let response: HTTPClientResponse
        do {
            response = try await client.send(request)
        } catch {
            switch error {
            case .cancelled, .shutdown: return .failure(.abandoned)
            default: return .failure(.unavailable("token endpoint: \(error)", retryAfter: nil))
            }
        }
        return Self.token(from: response)
    }

    /// The signed assertion: `{"iss","scope","aud","iat","exp"}` with `exp` = `iat` + 1 h.
    static func assertion(for account: FCMServiceAccount, audience: String, now: Timestamp) throws(PushKeyError) -> String {
        let issuedAt = now.milliseconds >= 0 ? now.milliseconds / 1_000 : (now.milliseconds - 999) / 1_000
        let expires = issuedAt + assertionLifetime.components.seconds
        let claims = "{\"iss\":" + JSONText.quoted(account.clientEmail) + ",\"scope\":" + JSONText.quoted(scope)
            + ",\"aud\":" + JSONText.quoted(audience) + ",\"iat\":\(issuedAt),\"exp\":\(expires)}"
        let header = account.privateKeyID.map { "\"kid\":" + JSONText.quoted($0) } ?? ""
        do {
            return try JSONWebToken.sign(claims: claims, headerMembers: header, with: account.key)
        } catch {
            throw .signingFailed(error)
        }
    }

    /// Reads the token endpoint's answer: a token on 200; Google's refusal (`invalid_grant`, …) on other
    /// 4xx; something to retry on 429, 5xx or an unreadable 200.
    static func token(from response: HTTPClientResponse) -> Result<FCMAccessToken, FCMTokenError> {
        struct Granted: Decodable {
            let access_token: String
            let expires_in: Int64
        }
        struct Refused: Decodable {
            let error: String?
            let error_description: String?
        }
        switch response.status {
        case 200:
            guard let granted = try? JSONDecoder().decode(Granted.self, from: Data(response.body)),
                  !granted.access_token.isEmpty, granted.expires_in > 0 else {
                return .failure(.unavailable("token endpoint: unreadable 200 response", retryAfter: nil))
            }
            return .success(FCMAccessToken(value: granted.access_token, lifetime: .seconds(granted.expires_in)))
        case 429, 500...599:
            return .failure(.unavailable("token endpoint: HTTP \(response.status)",
                                         retryAfter: PushRetryPolicy.retryAfter(response.header("retry-after"))))
        default:
            let refused = try? JSONDecoder().decode(Refused.self, from: Data(response.body))
            let reason = [refused?.error, refused?.error_description].compactMap { $0 }.joined(separator: ": ")
            return .failure(.refused(status: response.status, reason: reason))
        }
    }
}

/// An OAuth2 access token and how long Google said it lasts.
struct FCMAccessToken: Sendable, Hashable {
    let value: String
    let lifetime: Duration
}

/// Why no access token could be had.
enum FCMTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service account's key could not sign (not retried).
    case key(PushKeyError)
    /// Google refused the assertion (`invalid_grant`, a deleted key, a wrong e-mail); not retried.
    case refused(status: Int, reason: String)
    /// The endpoint failed or could not be reached; worth retrying.
    case unavailable(String, retryAfter: Duration?)
    /// The client was shut down or the request cancelled.
    case abandoned

    var description: String {
        switch self {
        case .key(let error): "\(error)"
        case .refused(let status, let reason): "token endpoint refused the assertion: HTTP \(status) \(reason)"
        case .unavailable(let reason, _): reason
        case .abandoned: "abandoned"
        }
    }
}
