import Foundation

extension Policy: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case appMessageType, pushTTL, pushPriority, lifetime, fallback, manualFallback
    }

    /// The longest span a policy may name: FCM's maximum TTL, 28 days.
    public static let longestSpan: Duration = .seconds(28 * 86_400)

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let typeName = try c.decode(String.self, forKey: .appMessageType)
        guard let type = AppMessageType(wireName: typeName) else {
            throw c.fail(.appMessageType, "expected one of \(AppMessageType.allCases.map(\.wireName).joined(separator: ", ")), got \"\(typeName)\"")
        }
        messageType = type
        pushTTL = try Self.lifetime(c, .pushTTL)
        lifetime = try Self.lifetime(c, .lifetime)
        let priorityName = try c.decode(String.self, forKey: .pushPriority)
        guard let priority = PushPriority(rawValue: priorityName) else {
            throw c.fail(.pushPriority, "expected \"high\" or \"normal\", got \"\(priorityName)\"")
        }
        pushPriority = priority
        fallback = try c.decode(Fallback.self, forKey: .fallback)
        let manualName = try c.decode(String.self, forKey: .manualFallback)
        guard let manual = ManualFallback(rawValue: manualName) else {
            throw c.fail(.manualFallback, "expected one of \(ManualFallback.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(manualName)\"")
        }
        manualFallback = manual

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
