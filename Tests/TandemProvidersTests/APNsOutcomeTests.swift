import Testing
import TandemCore
@testable import TandemProviders

@Suite("APNs answers and request headers")
struct APNsOutcomeTests {
    static let table: [(Int, String?, APNsOutcome)] = [
        (200, nil, .accepted),
        (410, "Unregistered", .tokenDead(reason: "Unregistered")),
        (410, "ExpiredToken", .tokenDead(reason: "ExpiredToken")),
        (400, "BadDeviceToken", .tokenDead(reason: "BadDeviceToken")),
        (400, "DeviceTokenNotForTopic", .tokenDead(reason: "DeviceTokenNotForTopic")),
        (403, "ExpiredProviderToken", .providerTokenExpired),
        (403, "InvalidProviderToken", .providerTokenRejected(reason: "InvalidProviderToken")),
        (403, "MissingProviderToken", .providerTokenRejected(reason: "MissingProviderToken")),
        (429, "TooManyProviderTokenUpdates", .providerTokenRejected(reason: "TooManyProviderTokenUpdates")),
        (429, "TooManyRequests", .retry(reason: "HTTP 429 TooManyRequests", retryAfter: nil)),
        (500, "InternalServerError", .retry(reason: "HTTP 500 InternalServerError", retryAfter: nil)),
        (503, "ServiceUnavailable", .retry(reason: "HTTP 503 ServiceUnavailable", retryAfter: nil)),
        (502, nil, .retry(reason: "HTTP 502", retryAfter: nil)),
        (400, "BadTopic", .failed(reason: "HTTP 400 BadTopic")),
        (400, "PayloadEmpty", .failed(reason: "HTTP 400 PayloadEmpty")),
        (403, "Forbidden", .failed(reason: "HTTP 403 Forbidden")),
        (413, "PayloadTooLarge", .failed(reason: "HTTP 413 PayloadTooLarge")),
    ]

    @Test("each status and reason maps as the issue says", arguments: table)
    func mapping(status: Int, reason: String?, expected: APNsOutcome) {
        let body = reason.map { Array(#"{"reason":"\#($0)","timestamp":1700000000000}"#.utf8) } ?? []
        #expect(APNsOutcome(status: status, body: body, retryAfter: nil) == expected)
    }

    @Test("a Retry-After on 429 is kept; a body that is not Apple's JSON has no reason")
    func retryAfterAndOddBodies() {
        #expect(APNsOutcome(status: 429, body: [], retryAfter: " 7 ") == .retry(reason: "HTTP 429", retryAfter: .seconds(7)))
        #expect(APNsOutcome(status: 400, body: Array("<html>".utf8), retryAfter: nil) == .failed(reason: "HTTP 400"))
        #expect(APNsOutcome(status: 410, body: [], retryAfter: nil) == .tokenDead(reason: "HTTP 410"))
    }

    @Test("apns-id is a stable UUID per delivery and device")
    func apnsID() {
        let device = DeviceID(testGUID())
        let first = APNsNotification.apnsID(for: DeliveryKey(1), device: device)
        #expect(first == APNsNotification.apnsID(for: DeliveryKey(1), device: device))
        #expect(first != APNsNotification.apnsID(for: DeliveryKey(2), device: device))
        #expect(first != APNsNotification.apnsID(for: DeliveryKey(1), device: DeviceID(testGUID())))
        #expect(GUID(first) != nil && first == first.uppercased())
        let characters = Array(first)
        #expect(characters[14] == "8", "version 8")
        #expect("89AB".contains(characters[19]), "RFC 9562 variant")
    }

    @Test("expiration: the TTL from the start, capped by the provider maximum; Unix seconds rounded down")
    func expiration() {
        let start = Timestamp(milliseconds: 1_700_000_000_900)
        let maximum = Duration.seconds(30 * 24 * 3600)
        let otp = APNsNotification.expiration(for: .specOTP, from: start, maximum: maximum)
        #expect(APNsNotification.unixSeconds(otp) == 1_700_000_030)
        let standard = APNsNotification.expiration(for: .specDefault, from: start, maximum: maximum)
        #expect(APNsNotification.unixSeconds(standard) == 1_700_000_000 + 30 * 24 * 3600)
        var long = Policy.specOTP
        long.pushTTL = .limited(.seconds(90 * 24 * 3600))
        #expect(APNsNotification.expiration(for: long, from: start, maximum: maximum) == standard)
        #expect(APNsNotification.priorityValue(.high) == "10")
        #expect(APNsNotification.priorityValue(.normal) == "5")
    }

    @Test("device tokens cannot change the request path")
    func pathComponent() {
        #expect(APNsNotification.pathComponent("a1B2-._~") == "a1B2-._~")
        #expect(APNsNotification.pathComponent("../x?y#z/%") == "..%2Fx%3Fy%23z%2F%25")
    }
}
