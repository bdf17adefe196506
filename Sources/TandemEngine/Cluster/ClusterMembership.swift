import Foundation
import Synchronization
import TandemCore

/// A node's membership of a cluster (docs/cluster.md): the lease loop on a thread of its own, and the ownership the
/// scheduler asks before it acts on a partition.
///
/// Every `interval` the loop runs one ``PartitionLeaseKeeper`` round (blocking statements, hence its own thread and
/// not the cooperative pool), then hands the leases valid now to `onRound`: the scheduler reconciles its partitions
/// with them, and the shared work follows them. A round that fails is logged; the leases run out at their validity.
/// ``leave()`` ends the loop and gives every partition up at once, so that other nodes take them in their next round.
public final class ClusterMembership: PartitionOwnership, @unchecked Sendable {
    /// What the loop has done, for `/metrics` and `/healthz`.
    public struct Statistics: Sendable, Hashable {
        public var rounds = 0
        public var failedRounds = 0
        /// Partitions claimed or taken over (a takeover of a dead node's partition among them).
        public var gained = 0
        public var lost = 0
        public var released = 0
        public var lastError: String?
    }

    public let keeper: PartitionLeaseKeeper
    public let interval: Duration
    private let logger: Logger
    private let stopped = Mutex(false)
    private let wake = NSCondition()
    private let statistics = Mutex(Statistics())
    private let done = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

    public var node: NodeID { keeper.planner.node }
    public var map: PartitionMap { keeper.planner.partitions }

    public init(keeper: PartitionLeaseKeeper, interval: Duration, logger: Logger) {
        self.keeper = keeper
        self.interval = interval
        self.logger = logger
    }

    public func epoch(of partition: Int) -> Int64? {
        keeper.epoch(of: partition, at: .now)
    }

    /// The leases valid now, in partition order.
    public var held: [LeaseRef] { keeper.partitions(at: .now) }

    public var counters: Statistics { statistics.withLock { $0 } }

    /// Starts the loop; `onRound` gets the leases valid after each round (on the loop's thread: it must not block).
    public func start(onRound: @escaping @Sendable ([LeaseRef]) -> Void) {
        guard running.withLock({ running in
            defer { running = true }
            return !running
        }) else { return }
        let thread = Thread { [self] in
            loop(onRound: onRound)
            done.signal()
        }
        thread.name = "tandem-leases"
        thread.start()
    }

    private func loop(onRound: @Sendable ([LeaseRef]) -> Void) {
        while !stopped.withLock({ $0 }) {
            let start = ContinuousClock.now
            do {
                let changes = try keeper.round(startedAt: start)
                statistics.withLock { statistics in
                    statistics.rounds += 1
                    statistics.gained += changes.gained.count
                    statistics.lost += changes.lost.count
                    statistics.released += changes.released.count
                    statistics.lastError = nil
                }
                if !changes.gained.isEmpty || !changes.lost.isEmpty || !changes.released.isEmpty {
                    logger.info("partition leases changed", [
                        "gained": .string(changes.gained.map(\.description).joined(separator: ",")),
                        "lost": .string(changes.lost.map(\.description).joined(separator: ",")),
                        "released": .string(changes.released.map(\.description).joined(separator: ",")),
                        "held": .int(Int64(keeper.partitions(at: .now).count)),
                    ])
                }
            } catch {
                statistics.withLock { statistics in
                    statistics.rounds += 1
                    statistics.failedRounds += 1
                    statistics.lastError = "\(error)"
                }
                logger.error("lease round failed; the leases held run out at their validity unless a later round renews them",
                             ["error": .string("\(error)")])
            }
            onRound(keeper.partitions(at: .now))
            let next = Date(timeIntervalSinceNow: Self.seconds(interval - start.duration(to: .now)))
            wake.lock()
            while !stopped.withLock({ $0 }) && Date() < next { _ = wake.wait(until: next) }
            wake.unlock()
        }
    }

    /// Ends the loop (waits for the round under way), then gives every partition up and removes this node's heartbeat.
    public func leave() {
        let wasRunning = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard wasRunning else { return }
        if running.withLock({ $0 }) {
            wake.lock()
            wake.broadcast()
            wake.unlock()
            done.wait()
        }
        do {
            try keeper.leave()
            logger.info("left the cluster: every partition released", [:])
        } catch {
            logger.error("leaving the cluster failed; the partitions move when their leases run out", ["error": .string("\(error)")])
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
