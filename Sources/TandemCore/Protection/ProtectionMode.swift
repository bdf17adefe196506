/// Whether a protection refuses what it catches, or only reports it (a new rule can be tried on live
/// traffic first: the SMS is sent, the log and `/metrics` say what would have been refused).
public enum ProtectionMode: String, Sendable, Hashable, CaseIterable {
    case enforce
    case monitor
}

extension ProtectionMode {
    /// The mode under `key`, if present; a value other than `enforce` or `monitor` is a decoding error saying so.
    static func decodeIfPresent<Key: CodingKey>(from c: KeyedDecodingContainer<Key>, forKey key: Key) throws -> ProtectionMode? {
        guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let mode = ProtectionMode(rawValue: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "expected enforce or monitor")
        }
        return mode
    }
}
