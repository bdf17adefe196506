/// What the scheduler must do after a delivery handled an event, named as imperatives. The state machine
/// itself never performs them: the scheduler persists them and the dispatcher carries them out.
public enum DeliveryAction: Sendable, Hashable {
    case sendPush([PushTarget], Policy)
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
