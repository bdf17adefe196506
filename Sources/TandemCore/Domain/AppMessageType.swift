/// How a hybrid message behaves when the push does not get through (spec: "APP Message Type").
///
/// - `default`: bulk and marketing; the push lives as long as the provider allows; SMS only when the push
///   cannot be delivered at all.
/// - `otp`: one-time passwords; a 30 s lifetime; the sender may ask for an SMS, which terminates the push.
/// - `critical`: automatic SMS when the push is not acknowledged or read in time (may deliver twice).
///
/// The behaviour itself is data (`Policy`); this enum only names the three kinds.
public enum AppMessageType: String, Sendable, Hashable, WireNamed, Codable {
    case `default` = "Default"
    case otp = "OTP"
    case critical = "Critical"
}
