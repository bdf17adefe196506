/// APNs `sound`: a file name, or the dictionary form for critical alerts.
public enum PushSound: Sendable, Hashable, Codable {
    /// `"sound": "<name>"`; `default` is the system sound.
    case named(String)
    /// `"sound": {"name": …, "critical": 0|1, "volume": 0.0…1.0}`.
    case dictionary(name: String, critical: Bool, volume: Double)

    public var name: String {
        switch self {
        case .named(let name), .dictionary(let name, _, _): name
        }
    }
}
