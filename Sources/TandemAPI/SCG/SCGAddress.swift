import TandemCore

/// One `to` address of an SCG message request:
/// - `psh:apn@<sender>@<device token>` → an APNs push to that token; `psh:gcm@…` and `psh:fcm@…` → an FCM
///   push (Android). `<sender>` names the app: its app key, or a sender id configured on the app (the
///   intake resolves it among the account's apps). The scheme and platform match in any ASCII casing.
/// - a phone number, `+` and 8–15 digits or the digits alone (SCG writes E.164 either way) → the hybrid
///   route of a CM recipient.
/// Anything else is refused with the reason (`email:`, `psh:wns@…`, a token with a space).
enum SCGAddress {
    static func parse(_ text: String) -> Result<Recipient, SCGAddressError> {
        if text.utf8.count >= 4, ASCIICase.equal(String(text.prefix(4)), "psh:") {
            return push(String(text.dropFirst(4)), whole: text)
        }
        let digits = text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard (8...15).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              digits.first != "0", let msisdn = MSISDN("+" + digits) else {
            return .failure(SCGAddressError("\(JSONText.quoted(text)) is neither an international phone number (+ and 8-15 digits) "
                + "nor a psh:apn@, psh:gcm@ or psh:fcm@ push address"))
        }
        return .success(.msisdn(msisdn))
    }

    private static func push(_ rest: String, whole: String) -> Result<Recipient, SCGAddressError> {
        let parts = rest.split(separator: "@", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else {
            return .failure(SCGAddressError("\(JSONText.quoted(whole)) must be psh:<apn|gcm|fcm>@<sender>@<device token>"))
        }
        let platform: Platform
        switch parts[0].lowercased() {
        case "apn": platform = .iOS
        case "gcm", "fcm": platform = .android
        default: return .failure(SCGAddressError("\(JSONText.quoted(whole)): push platform \(JSONText.quoted(parts[0])) is not apn, gcm or fcm"))
        }
        guard !parts[1].isEmpty else { return .failure(SCGAddressError("\(JSONText.quoted(whole)) names no sender (app key or sender id)")) }
        guard let token = PushToken(parts[2]) else {
            return .failure(SCGAddressError("\(JSONText.quoted(whole)): the device token must be 1-4096 printable ASCII characters"))
        }
        return .success(.pushAddress(PushAddress(platform: platform, app: parts[1], token: token)))
    }
}

/// Why a `to` address was refused, as a sentence naming it.
struct SCGAddressError: Error, Hashable {
    let problem: String
    init(_ problem: String) { self.problem = problem }
}
