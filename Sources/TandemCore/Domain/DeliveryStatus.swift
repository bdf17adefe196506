/// The status of one recipient's delivery, in the spec's vocabulary. The wire strings live here only.
///
/// - `accepted`: taken on by Tandem, or by the carrier or push service;
/// - `rejected`: refused (no route the message may take, or refused by the carrier or push service);
/// - `sent`: Tandem did not cancel it and is trying to send it;
/// - `delivered`: on the device (by push ack or SMS delivery report);
/// - `read`: displayed to the user (the app's `ReadByRecipient`);
/// - `failed`: could not be delivered (push failure without fallback, SMS failure, lifetime or validity expired),
///   or not known to be: no SMS report came by the end of the SMS's validity and `smsReportWait`;
/// - `cancelled`: withdrawn before it was delivered (an OTP push terminated by a manual SMS fallback).
public enum DeliveryStatus: String, Sendable, Hashable, WireNamed, Codable {
    case accepted = "Accepted"
    case rejected = "Rejected"
    case sent = "Sent"
    case delivered = "Delivered"
    case read = "Read"
    case failed = "Failed"
    case cancelled = "Cancelled"
}
