/// What the scheduler must do after a delivery handled an event, named as imperatives. The state machine
/// itself never performs them: the scheduler persists them and the dispatcher carries them out.
///
/// `sendPush` is `indirect` (its payload boxed): with the policy inline every action took ~130 bytes, so the few
/// actions of each event (a final receipt's: cancel, record, report) needed an ~800-byte array — a size glibc serves
/// from its bins rather than its per-thread cache once the arrays are freed on another thread (~8% of the
/// scheduler's thread under the receipts benchmark). Boxed, an action is a few words (a test holds it there).
public enum DeliveryAction: Sendable, Hashable {
    indirect case sendPush([PushTarget], Policy)
    /// Withdraw the push from these devices: drop it if still queued, else mark it Cancelled and withhold
    /// its content from the app.
    case terminatePush([DeviceID])
    case sendSMS
    case schedule(TimerKind, at: Timestamp)
    case cancel(TimerKind)
    /// The push service declared this registration's token dead: it becomes `Invalid`.
    case invalidateRegistration(DeviceID)
    /// Store this as the delivery's current status.
    case record(DeliveryStatus)
    /// Tell the sender: the delivery's one final status report.
    case report(DeliveryStatus)
}
