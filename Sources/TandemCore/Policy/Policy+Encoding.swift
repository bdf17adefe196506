/// Policies encode in the same shape as `Policies/*.json`, so a delivery can carry the policy it was
/// accepted under (a policy file changed later does not alter messages already in flight).
extension Policy: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(messageType.wireName, forKey: .appMessageType)
        try c.encode(Self.text(pushTTL), forKey: .pushTTL)
        try c.encode(pushPriority.rawValue, forKey: .pushPriority)
        try c.encode(Self.text(lifetime), forKey: .lifetime)
        try c.encode(fallback, forKey: .fallback)
        try c.encode(manualFallback.rawValue, forKey: .manualFallback)
    }

    private static func text(_ lifetime: Lifetime) -> String {
        switch lifetime {
        case .providerMaximum: "providerMaximum"
        case .limited(let duration): DurationText.format(duration)
        }
    }
}

extension Policy.Fallback: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(onPushFailure, forKey: .onPushFailure)
        try c.encode(afterNoDeliveryAck.map(DurationText.format), forKey: .afterNoDeliveryAck)
        try c.encode(afterNoRead.map(DurationText.format), forKey: .afterNoRead)
    }
}
