/// A partition's lease as observed by the planner: its number and the epoch read. The store's compare-and-set
/// statements act only if the row still has that epoch, so an action planned on a stale view fails instead of
/// undoing another node's claim.
public struct LeaseRef: Sendable, Hashable, CustomStringConvertible {
    public let partition: Int
    public let epoch: Int64

    public init(partition: Int, epoch: Int64) {
        self.partition = partition
        self.epoch = epoch
    }

    public var description: String { "\(partition)@\(epoch)" }
}
