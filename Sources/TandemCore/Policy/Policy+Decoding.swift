import Foundation

extension Policy: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case appMessageType, pushTTL, pushPriority, lifetime, fallback, manualFallback
    }

    /// The longest span a policy may name: FCM's maximum TTL, 28 days.
    public static let longestSpan: Duration = .seconds(28 * 86_400)

    /// A policy spelled out (as in `Policies/*.json`), or a number the decoder's ``CodingUserInfoKey/policyResolver``
    /// resolves (as the store writes snapshots: ``PolicyResolving``).
    public init(from decoder: any Decoder) throws {
        if let referenced = try Self.referenced(by: decoder) {
            self = referenced
            return
        }
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        messageType = try c.decodeChoice(AppMessageType.self, forKey: .appMessageType, parse: AppMessageType.init(wireName:))
        pushTTL = try Self.lifetime(c, .pushTTL)
        lifetime = try Self.lifetime(c, .lifetime)
        pushPriority = try c.decodeChoice(PushPriority.self, forKey: .pushPriority)
        fallback = try c.decode(Fallback.self, forKey: .fallback)
        manualFallback = try c.decodeChoice(ManualFallback.self, forKey: .manualFallback)

        if let ttl = pushTTL.duration, let life = lifetime.duration, ttl > life {
            throw c.fail(.pushTTL, "must not exceed lifetime (\(DurationText.format(life)))")
        }
        if let life = lifetime.duration {
            if let ack = fallback.afterNoDeliveryAck, ack >= life {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [CodingKeys.fallback, Fallback.CodingKeys.afterNoDeliveryAck],
                    debugDescription: "must be shorter than lifetime (\(DurationText.format(life))), or it could never fire"))
            }
            if let read = fallback.afterNoRead, read >= life {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [CodingKeys.fallback, Fallback.CodingKeys.afterNoRead],
                    debugDescription: "must be shorter than lifetime (\(DurationText.format(life))), or it could never fire"))
            }
        }
    }

    private static func lifetime(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Lifetime {
        if try c.decode(String.self, forKey: key) == "providerMaximum" { return .providerMaximum }
        return .limited(try c.decodeDuration(forKey: key, in: .seconds(1)...longestSpan))
    }
}

extension Policy.Fallback: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case onPushFailure, afterNoDeliveryAck, afterNoRead
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        onPushFailure = try c.decode(Bool.self, forKey: .onPushFailure)
        afterNoDeliveryAck = try Self.optionalSpan(c, .afterNoDeliveryAck)
        afterNoRead = try Self.optionalSpan(c, .afterNoRead)
    }

    /// Absent or `null` means "no such timer".
    private static func optionalSpan(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Duration? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        return try c.decodeDuration(forKey: key, in: .milliseconds(100)...Policy.longestSpan)
    }
}
