import TandemCore

/// One valid `POST /messaging/message_requests` body, every field checked: what ``SCGCodec`` decodes and
/// ``command`` hands to the intake.
///
/// Acted on: `from` (the SMS sender and default push title; a `sender_id:` prefix is dropped), `to`, `body`,
/// `options` (the push presentation), `application_id` (the app of phone-number recipients),
/// `expiry_time` (the validity), `external_id` (the reference, searchable and echoed), `campaign_id` (the
/// first custom grouping). Stored in ``extra`` and returned, not acted on: `scheduled_delivery_time`
/// (sent at once), `test_message_flag` (sent anyway), `failover` (Tandem's own push-then-SMS routing
/// applies), and the addresses exactly as sent.
public struct SCGMessageRequest: Sendable, Hashable {
    /// `from` as sent.
    public let from: String
    /// `from` without a `sender_id:` prefix.
    public let sender: String
    /// `to` as sent, in order; `recipients` has one entry for each.
    public let to: [String]
    public let recipients: [Recipient]
    public let body: String
    public let presentation: PushPresentation
    public let appKey: AppKey?
    public let externalID: String?
    public let expiry: Timestamp?
    public let campaignID: String?
    /// The request's fields as stored with the message (compact JSON; keys in a fixed order, absent ones
    /// left out): `from`, `to`, and those of `application_id`, `external_id`, `expiry_time`,
    /// `scheduled_delivery_time`, `test_message_flag`, `campaign_id`, `failover` that were given.
    public let extra: String

    /// The intake's command for the request.
    public var command: SendCommand {
        SendCommand(api: "scg", recipients: recipients, sender: sender, body: body, presentation: presentation,
                    appKey: appKey, validity: expiry.map(MessageValidity.absolute), reference: externalID,
                    customGroupings: [campaignID, nil, nil], extra: extra)
    }
}
