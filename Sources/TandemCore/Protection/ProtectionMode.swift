/// Whether a protection refuses what it catches, or only reports it (a new rule can be tried on live
/// traffic first: the SMS is sent, the log and `/metrics` say what would have been refused).
public enum ProtectionMode: String, Sendable, Hashable, CaseIterable {
    case enforce
    case monitor
}
