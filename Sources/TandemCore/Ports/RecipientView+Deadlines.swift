/// One deadline of a delivery's timeline: when a timer of the policy was (or is) due.
public struct TimelineDeadline: Sendable, Hashable {
    public let kind: TimerKind
    public let at: Timestamp
    /// Still armed in the stored snapshot (not fired, not cancelled yet).
    public let armed: Bool

    public init(kind: TimerKind, at: Timestamp, armed: Bool) {
        self.kind = kind
        self.at = at
        self.armed = armed
    }
}

extension RecipientView {
    /// The policy's deadlines of this delivery, in `TimerKind.allCases` order, for drawing beside its events.
    ///
    /// A fired or cancelled timer is no longer in the snapshot, so the push deadlines are worked out the way the
    /// state machine armed them: the `routed` event's time plus the plan's policy spans (`afterNoDeliveryAck`
    /// and `afterNoRead` only when the plan allows an SMS; `lifetime` when it is limited). `smsValidity` is the
    /// first `smsSubmitted` event plus the SMS validity and the report wait. A timer still armed in the snapshot
    /// gives its own deadline and `armed: true`. Not guaranteed: the exact millisecond of a deadline that is no
    /// longer armed (the event log keeps milliseconds, as the state machine's `now` did).
    public var deadlines: [TimelineDeadline] {
        var found: [TimerKind: Timestamp] = [:]
        if let plan = delivery.plan, let routed = events.first(where: { $0.kind == "routed" })?.at {
            if plan.smsAllowed {
                if let span = plan.policy.fallback.afterNoDeliveryAck { found[.noDeliveryAck] = routed + span }
                if let span = plan.policy.fallback.afterNoRead { found[.noRead] = routed + span }
            }
            if let span = plan.policy.lifetime.duration { found[.lifetime] = routed + span }
        }
        if let submitted = events.first(where: { $0.kind == "smsSubmitted" })?.at {
            found[.smsValidity] = submitted + delivery.smsValidity + delivery.smsReportWait
        }
        for (kind, deadline) in delivery.timers { found[kind] = deadline }
        return TimerKind.allCases.compactMap { kind in
            found[kind].map { TimelineDeadline(kind: kind, at: $0, armed: delivery.timers[kind] != nil) }
        }
    }
}
