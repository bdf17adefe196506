/// How deliveries are split among the nodes of a multi-node deployment: `count` partitions, fixed when the
/// database is created, and every delivery in partition `key mod count`.
///
/// A node works on a delivery only while it holds the lease of the delivery's partition (see ``LeasePlanner``).
/// The count cannot change while nodes run: two nodes with different counts would disagree about which
/// partition a delivery is in.
public struct PartitionMap: Sendable, Hashable {
    /// The number of partitions, in `allowedCounts`.
    public let count: Int

    /// 256: comfortably more partitions than nodes (so the split is even to within one partition in 256), few
    /// enough that every node reads all lease rows every round.
    public static let defaultCount = 256
    /// 1…4096: at least one partition, and at most as many lease rows as a node can read every round.
    public static let allowedCounts = 1...4096

    public init(count: Int = PartitionMap.defaultCount) throws(ClusterSettingsError) {
        guard Self.allowedCounts.contains(count) else { throw .partitionCount(count) }
        self.count = count
    }

    /// Every partition number, `0..<count`.
    public var partitions: Range<Int> { 0..<count }

    /// The partition of a delivery: its key mod `count`. Keys are positive; a key that is not (never issued by
    /// a store) still maps into `0..<count`, by the non-negative remainder.
    public func partition(of key: DeliveryKey) -> Int {
        let remainder = Int(key.rawValue % Int64(count))
        return remainder < 0 ? remainder + count : remainder
    }

    /// How many partitions each of `nodes` is due: sorted (``NodeID``'s byte order), node `i` of `n` gets
    /// `count / n`, plus one if `i < count % n`. The targets sum to `count`, differ by at most one, and every
    /// node computes the same ones from the same set. Empty for an empty set.
    ///
    /// For example 256 partitions over `a`, `b`, `c`: `a` 86, `b` 85, `c` 85.
    public func targets(for nodes: Set<NodeID>) -> [NodeID: Int] {
        guard !nodes.isEmpty else { return [:] }
        let (quotient, remainder) = count.quotientAndRemainder(dividingBy: nodes.count)
        var targets: [NodeID: Int] = [:]
        targets.reserveCapacity(nodes.count)
        for (index, node) in nodes.sorted().enumerated() {
            targets[node] = quotient + (index < remainder ? 1 : 0)
        }
        return targets
    }
}
