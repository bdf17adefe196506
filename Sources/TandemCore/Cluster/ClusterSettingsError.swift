/// Why a multi-node setting was refused: a node name, a partition count or a per-round limit. Each case carries
/// the offending value and its `description` is one sentence for a person to act on.
public enum ClusterSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A node id that is empty, longer than 64 characters, or has a character outside `[A-Za-z0-9._-]`.
    case nodeID(String)
    /// A partition count outside `PartitionMap.allowedCounts` (1…4096).
    case partitionCount(Int)
    /// A per-round claim limit below 1.
    case maxClaimsPerRound(Int)
    /// A per-round release limit below 1.
    case maxReleasesPerRound(Int)

    public var description: String {
        switch self {
        case .nodeID(let text):
            "a node id must be 1 to 64 characters of ASCII letters, digits, '.', '_' and '-', got \(JSONText.quoted(text))"
        case .partitionCount(let count):
            "the partition count must be from \(PartitionMap.allowedCounts.lowerBound) to "
                + "\(PartitionMap.allowedCounts.upperBound), got \(count)"
        case .maxClaimsPerRound(let limit):
            "a node must be allowed to claim at least 1 partition per round, got \(limit)"
        case .maxReleasesPerRound(let limit):
            "a node must be allowed to release at least 1 partition per round, got \(limit)"
        }
    }
}
