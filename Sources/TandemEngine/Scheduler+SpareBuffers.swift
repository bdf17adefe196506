import TandemCore

extension Scheduler {
    /// Emptied buffers kept for reuse, with their capacity: the queue and the inbox's commands (traded as they
    /// are taken), a batch's changes, previous deliveries, applied events, actions and replies (once acted on).
    /// Under load each is kilobytes to tens of kilobytes — allocated per batch, they took malloc's slowest
    /// paths (with the store's commit buffers, ~6% of the server's CPU samples under the receipts benchmark). A few
    /// of each are kept (a batch is prepared before the one before it has given its buffers back); buffers beyond
    /// ``spareLimit`` elements are let go.
    struct SpareBuffers {
        var queue: [[Command]] = []
        var inbox: [[Command]] = []
        var changes: [[DeliveryChange]] = []
        var changed: [[AppliedEvent]] = []
        var previous: [[Delivery]] = []
        var actions: [[DeliveryAction]] = []
        var replies: [[Reply]] = []
    }

    static let spareLimit = 4_096
    static let sparesKept = commitsInFlight + 1

    /// A spare buffer from the pool at `path` (or a new one), empty, now the caller's alone.
    func takeSpare<Element>(_ path: WritableKeyPath<SpareBuffers, [[Element]]>) -> [Element] {
        spares[keyPath: path].popLast() ?? []
    }

    /// Empties `buffer` and keeps it (its capacity) in the pool at `path`, leaving `buffer` empty.
    func keepSpare<Element>(_ buffer: inout [Element], _ path: WritableKeyPath<SpareBuffers, [[Element]]>) {
        guard buffer.capacity <= Self.spareLimit, spares[keyPath: path].count < Self.sparesKept else { return }
        buffer.removeAll(keepingCapacity: true)
        var kept: [Element] = []
        swap(&kept, &buffer)
        spares[keyPath: path].append(kept)
    }
}
