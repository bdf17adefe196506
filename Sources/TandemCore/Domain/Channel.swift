/// A delivery channel a message may take (spec: "Allowed Channel"). Absent `allowedChannels` means all of them.
public enum Channel: String, Sendable, Hashable, WireNamed, Codable {
    case sms = "SMS"
    case push = "Push"
}
