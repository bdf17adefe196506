/// Which delivery reports Kannel is asked for (`dlr-mask`, a bit set; Kannel's `gw/dlr.h`).
///
/// The default, ``finalStates`` (1 + 2 + 16 = 19), asks only for reports that end a delivery: delivered to
/// the phone, not delivered to the phone (expired ones included — Kannel reports them as 2 and forwards
/// the SMSC's `stat:EXPIRED` receipt text), and refused by the SMSC. `queued` (4) and `smscAccepted` (8)
/// are intermediate: the DLR endpoint answers them without reporting anything, so asking for them costs a
/// callback each and changes nothing. ``all`` is 31.
public struct KannelDLRMask: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: delivered to the phone (`DLR_SUCCESS`).
    public static let delivered = KannelDLRMask(rawValue: 1)
    /// 2: not delivered to the phone (`DLR_FAIL`), expired included.
    public static let undelivered = KannelDLRMask(rawValue: 2)
    /// 4: queued on the SMSC (`DLR_BUFFERED`); intermediate.
    public static let queued = KannelDLRMask(rawValue: 4)
    /// 8: accepted by the SMSC (`DLR_SMSC_SUCCESS`, its submit ack); intermediate.
    public static let smscAccepted = KannelDLRMask(rawValue: 8)
    /// 16: refused by the SMSC (`DLR_SMSC_FAIL`, its submit nack).
    public static let smscRejected = KannelDLRMask(rawValue: 16)

    /// 19: the reports that end a delivery.
    public static let finalStates: KannelDLRMask = [.delivered, .undelivered, .smscRejected]
    /// 31: every report Kannel knows.
    public static let all: KannelDLRMask = [.finalStates, .queued, .smscAccepted]
}
