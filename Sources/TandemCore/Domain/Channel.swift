/// A delivery channel a message may take (spec: "Allowed Channel"). Absent `allowedChannels` means all of them.
public enum Channel: String, Sendable, Hashable, CaseIterable, Codable {
    case sms = "SMS"
    case push = "Push"

    /// The wire name, exactly as the spec spells it.
    public var wireName: String { rawValue }

    /// Parses a wire name in any casing and with stray spaces (`" push"`); nil for anything else.
    public init?(wireName: String) {
        let folded = wireName.trimmingASCIISpaces().lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = match
    }
}
