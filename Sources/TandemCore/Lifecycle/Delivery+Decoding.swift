/// Decoding a delivery's snapshot. A flag that is false, a table that is empty, and the default `smsReportWait`
/// may be left out: the store's snapshot writer omits them, and the snapshots written before it did (and
/// `JSONEncoder`'s, which spell them out) read back the same. Snapshots from before `smsReportWait` existed read
/// with the default: an SMS they submit later waits that long after its validity; one already submitted keeps
/// the deadline in its timer table.
extension Delivery {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(smsValidity: try container.decode(Duration.self, forKey: .smsValidity),
                  smsReportWait: try container.decodeIfPresent(Duration.self, forKey: .smsReportWait)
                      ?? Delivery.defaultSMSReportWait)
        state = try container.decode(State.self, forKey: .state)
        status = try container.decode(DeliveryStatus.self, forKey: .status)
        resolution = try container.decodeIfPresent(Resolution.self, forKey: .resolution)
        rejectReason = try container.decodeIfPresent(RejectReason.self, forKey: .rejectReason)
        plan = try container.decodeIfPresent(PushPlan.self, forKey: .plan)
        routePolicy = try container.decodeIfPresent(Policy.self, forKey: .routePolicy)
        devices = try container.decodeIfPresent(DeviceProgressTable.self, forKey: .devices) ?? DeviceProgressTable()
        timers = try container.decodeIfPresent(TimerDeadlines.self, forKey: .timers) ?? TimerDeadlines()
        smsRequested = try container.decodeIfPresent(Bool.self, forKey: .smsRequested) ?? false
        smsCause = try container.decodeIfPresent(SMSCause.self, forKey: .smsCause)
        sms = try container.decodeIfPresent(SMSSubmission.self, forKey: .sms)
        smsPartsDelivered = try container.decodeIfPresent([String].self, forKey: .smsPartsDelivered)
        pushTerminated = try container.decodeIfPresent(Bool.self, forKey: .pushTerminated) ?? false
    }
}

extension Delivery {
    /// A delivery put back together from its stored fields, for a store's own snapshot reader (the fast path beside
    /// `init(from:)`). Not checked: that the fields are a combination the state machine can reach — they are what
    /// the state machine stored.
    public init(restoringState state: State, status: DeliveryStatus, resolution: Resolution?, rejectReason: RejectReason?,
                plan: PushPlan?, routePolicy: Policy?, devices: DeviceProgressTable, timers: TimerDeadlines,
                smsRequested: Bool, smsCause: SMSCause?, sms: SMSSubmission?, smsPartsDelivered: [String]?,
                pushTerminated: Bool, smsValidity: Duration, smsReportWait: Duration) {
        self.init(smsValidity: smsValidity, smsReportWait: smsReportWait)
        self.state = state
        self.status = status
        self.resolution = resolution
        self.rejectReason = rejectReason
        self.plan = plan
        self.routePolicy = routePolicy
        self.devices = devices
        self.timers = timers
        self.smsRequested = smsRequested
        self.smsCause = smsCause
        self.sms = sms
        self.smsPartsDelivered = smsPartsDelivered
        self.pushTerminated = pushTerminated
    }
}
