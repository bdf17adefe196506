/// A push in TIBCO BusinessWorks Mobile Integration's own shape (``PushPresentation/bwmi``): the renderers
/// then send exactly the payload a BWMI app parses, and nothing of Tandem's own (no `messageId`,
/// `updateId`, `sender` or `body`, no FCM `notification`).
///
/// FCM `data`, every value a string (as BWMI's documentation shows them):
/// - ``managed(bid:sentAt:)``: `{"text","timestamp","nid","bid","faf":"false","badge"}` (`bid` left out when nil);
/// - ``fireAndForget``: `{"text","faf":"true","sound","badge"}` (`sound`, `badge` left out when not given);
/// - ``badgeOnly``: `{"badge"}`.
///
/// APNs: `{"aps":{"alert":<text>,"sound":…,"badge":<n>},"nid","bid","faf"}` for the first two, and
/// `{"aps":{"badge":<n>}}` for a badge update. `nid` is the delivery's update id; `text` the message body;
/// `badge` and `sound` come from the presentation's ``PushPresentation/badge`` and ``PushPresentation/sound``.
public enum BWMIPush: Sendable, Hashable, Codable {
    /// Tracked until the device acknowledges it; `sentAt` is the `timestamp` (unix milliseconds).
    case managed(bid: String?, sentAt: Int64)
    /// Not tracked: no `nid` acknowledgement is expected.
    case fireAndForget(bid: String?)
    /// Only the device's new badge (after an acknowledgement).
    case badgeOnly
}
