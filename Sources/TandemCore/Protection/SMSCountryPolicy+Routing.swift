extension SMSCountryPolicy {
    /// What the account's country rule makes of a routing decision for `msisdn`:
    /// - an SMS to a refused region becomes a rejection (``RejectReason/smsCountryNotAllowed``);
    /// - a push to a refused region keeps its push and loses its SMS fallback;
    /// - anything else, and everything in `monitor` mode, is left as it is.
    ///
    /// `refused` says whether the rule caught the decision (in either mode), for the log and `/metrics`.
    public func restrict(_ decision: RoutingDecision, msisdn: MSISDN) -> (decision: RoutingDecision, refused: RegionCode?) {
        guard countries != .anywhere else { return (decision, nil) }
        let region = CallingCodes.region(of: msisdn)
        guard !countries.permits(region) else { return (decision, nil) }
        switch decision {
        case .reject:
            return (decision, nil)
        case .push(var plan):
            guard plan.smsAllowed else { return (decision, nil) }
            guard mode == .enforce else { return (decision, region) }
            plan.smsAllowed = false
            return (.push(plan), region)
        case .sms:
            return (mode == .enforce ? .reject(.smsCountryNotAllowed) : decision, region)
        }
    }
}
