import TandemCore
import TandemCrypto

/// One notification to one device token, as the APNs HTTP/2 API wants it: `POST /3/device/<token>` with
/// the `apns-*` headers and the JSON payload. Built once per target and sent again unchanged on a retry
/// (same `apns-id`, same absolute `apns-expiration`); only the provider token may differ.
struct APNsNotification: Sendable {
    let token: PushToken
    let topic: String
    let pushType: String
    let priority: Policy.PushPriority
    /// When APNs may discard the notification (`apns-expiration`, Unix seconds).
    let expiration: Timestamp
    /// `apns-collapse-id`: the message id, so repeated pushes of one message show once (≤ 64 bytes).
    let collapseID: String
    let apnsID: String
    let payload: [UInt8]

    /// The request, authenticated with the provider token `jwt`.
    func request(baseURL: String, jwt: String, timeout: Duration) -> HTTPClientRequest {
        HTTPClientRequest(method: .post, url: baseURL + "/3/device/" + Self.pathComponent(token.text),
                          headers: [
                            HTTPClientHeader("authorization", "bearer " + jwt),
                            HTTPClientHeader("apns-topic", topic),
                            HTTPClientHeader("apns-push-type", pushType),
                            HTTPClientHeader("apns-priority", Self.priorityValue(priority)),
                            HTTPClientHeader("apns-expiration", String(Self.unixSeconds(expiration))),
                            HTTPClientHeader("apns-collapse-id", collapseID),
                            HTTPClientHeader("apns-id", apnsID),
                            HTTPClientHeader("content-type", "application/json"),
                          ],
                          body: payload, timeout: timeout, version: .http2)
    }

    /// 10 sends at once (alerts), 5 lets the device's power state decide.
    static func priorityValue(_ priority: Policy.PushPriority) -> String {
        switch priority {
        case .high: "10"
        case .normal: "5"
        }
    }

    /// `start` + the policy's push TTL, capped at `maximum`; `.providerMaximum` is `maximum`.
    static func expiration(for policy: Policy, from start: Timestamp, maximum: Duration) -> Timestamp {
        start + min(policy.pushTTL.duration ?? maximum, maximum)
    }

    /// Whole Unix seconds, rounded down (a push never outlives its TTL).
    static func unixSeconds(_ instant: Timestamp) -> Int64 {
        let millis = instant.milliseconds
        return millis >= 0 ? millis / 1_000 : (millis - 999) / 1_000
    }

    /// A UUID that names this (delivery, device) pair, the same on every retry: the first 16 bytes of
    /// SHA-256 over both, marked as an RFC 9562 version-8 (custom) UUID, upper-case as Apple writes them.
    static func apnsID(for key: DeliveryKey, device: DeviceID) -> String {
        var bytes = Array(Digest.hash(.sha256, Array("tandem-apns-id:\(key.rawValue):\(device.guid.text)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array(Digest.hex(bytes).uppercased())
        return String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-"
            + String(hex[16..<20]) + "-" + String(hex[20..<32])
    }

    /// The token as one path segment: RFC 3986 unreserved bytes as they are, the rest percent-encoded
    /// (device tokens are hex; this only keeps a malformed one from changing the path).
    static func pathComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(digits[Int(byte >> 4)])
                out.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return out
    }
}
