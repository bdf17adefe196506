import TandemCore

/// A cluster node's scheduler (docs/cluster.md): it holds, times and changes only the deliveries of the partitions
/// its leases cover, and only while they are valid.
///
/// - **Level-triggered.** After every lease round the node's loop hands the scheduler the leases it holds
///   (``reconcile(with:)``): a partition held and not loaded is loaded (a takeover: its in-flight deliveries read
///   through the partition index, their timers re-armed, overdue ones fired at once, unrecorded work asked for
///   again); a partition loaded and no longer held, or held at another epoch, is dropped (its deliveries, timers and
///   SMS part ids leave memory; commands waiting for it fail with ``NotPartitionOwner``).
/// - **Commands.** A receipt, report or request naming a delivery in a partition not loaded here fails with
///   ``NotPartitionOwner`` without being applied (the caller forwards it to the owner); one naming a partition still
///   loading waits for it. New deliveries go to the partitions loaded here, in turn; with none, ``NoPartitionHeld``.
/// - **Fencing.** Every commit carries the epochs its partitions were loaded under (``CommitFence``); the store fails
///   it when the node no longer holds one of them.
/// - **Acting.** After a commit, a delivery is acted on (timers armed, pushes and SMS sent) only while its partition's
///   lease is still valid at the epoch it was loaded under. When it is not, the partition is dropped here; the next
///   round loads it again if the node still holds it, and then resumes what the commit decided (the same resumption
///   as after a restart).
extension Scheduler {
    /// A partition on a cluster node: its deliveries loading, or loaded, under the lease's epoch.
    enum PartitionState: Equatable {
        case loading(epoch: Int64)
        case loaded(epoch: Int64)
    }

    /// What a reconciliation did.
    public struct PartitionChanges: Sendable, Hashable {
        /// Partitions loaded, with what loading them found.
        public var loaded: [Int] = []
        public var recovery = RecoveryReport()
        /// Partitions dropped: no longer held, or held at another epoch.
        public var dropped: [Int] = []
        /// Partitions held whose deliveries could not be read this time (tried again at the next reconciliation).
        public var failed: [Int] = []
    }

    /// The partitions whose deliveries are loaded here, with the epochs they were loaded under.
    public var loadedPartitions: [LeaseRef] {
        partitions.compactMap { partition, state in
            if case .loaded(let epoch) = state { LeaseRef(partition: partition, epoch: epoch) } else { nil }
        }.sorted { $0.partition < $1.partition }
    }

    /// The partitions whose deliveries are loaded here (as of the last change), from any thread: what a cluster node
    /// acts on and starts new deliveries in — `/healthz` shows them, so that a load balancer's check waits for them.
    public nonisolated var actingPartitions: [Int] { loadedSnapshot.withLock { $0 } }

    /// Brings the partitions in memory in line with `held`, the leases the node holds now (see the type's notes).
    /// Loads one partition after another; commands for a partition wait while it loads.
    @discardableResult
    public func reconcile(with held: [LeaseRef]) async -> PartitionChanges {
        guard let ownership else { return PartitionChanges() }
        let started = clock.now()
        var changes = PartitionChanges()
        let epochs = Dictionary(held.map { ($0.partition, $0.epoch) }, uniquingKeysWith: max)
        var stale: [Int] = []
        for (partition, state) in partitions {
            switch state {
            case .loaded(let epoch), .loading(let epoch):
                if epochs[partition] != epoch { stale.append(partition) }
            }
        }
        drop(stale.sorted())
        changes.dropped = stale.sorted()

        let missing = held.filter { partitions[$0.partition] == nil }.sorted { $0.partition < $1.partition }
        for lease in missing { partitions[lease.partition] = .loading(epoch: lease.epoch) }
        for lease in missing {
            // Dropped meanwhile (a later reconciliation ran during a read): nothing more to do for it.
            guard partitions[lease.partition] == .loading(epoch: lease.epoch) else { continue }
            let page: [StoredDelivery]
            do {
                page = try await store.loadInFlight(partition: lease.partition, of: ownership.map)
            } catch {
                logger.error("loading a partition's deliveries failed; trying again at the next lease round",
                             ["partition": .int(Int64(lease.partition)), "error": .string("\(error)")])
                changes.failed.append(lease.partition)
                drop([lease.partition])
                continue
            }
            guard partitions[lease.partition] == .loading(epoch: lease.epoch) else { continue }
            partitions[lease.partition] = .loaded(epoch: lease.epoch)
            install(page, into: &changes.recovery)
            changes.loaded.append(lease.partition)
            if let waiting = heldForPartition.removeValue(forKey: lease.partition) {
                changes.recovery.commandsHeld += waiting.count
                for command in waiting { add(command) }
                prepareQueued()
            }
        }
        if !changes.loaded.isEmpty || !changes.dropped.isEmpty {
            logger.info("partitions reconciled", [
                "loaded": .string(changes.loaded.map(String.init).joined(separator: ",")),
                "dropped": .string(changes.dropped.map(String.init).joined(separator: ",")),
                "deliveries": .int(Int64(changes.recovery.deliveries)), "timersOverdue": .int(Int64(changes.recovery.timersOverdue)),
                "milliseconds": .int((clock.now() - started).milliseconds),
            ])
        }
        return changes
    }

    /// Drops `dropped` from memory: their deliveries, timers and SMS part ids; commands waiting for them fail.
    func drop(_ dropped: [Int]) {
        guard let ownership, !dropped.isEmpty else { return }
        let set = Set(dropped)
        for partition in dropped {
            partitions[partition] = nil
            for command in heldForPartition.removeValue(forKey: partition) ?? [] {
                reject(command, partition: partition, now: clock.now())
            }
        }
        for inFlight in entries.removeAll(where: { set.contains(ownership.map.partition(of: $0)) }) {
            let key = inFlight.entry.key
            for kind in [TimerKind.noDeliveryAck, .noRead, .lifetime, .smsValidity] { wheel.cancel(Self.timerID(key, kind)) }
            if let sms = inFlight.entry.delivery.sms {
                for reference in sms.references where smsParts[SMSPart(provider: sms.provider, reference: reference)] == key {
                    smsParts[SMSPart(provider: sms.provider, reference: reference)] = nil
                }
            }
            smsSubmitsOutstanding.remove(key)
        }
        updateGauges()
    }

    /// The partition of `command`'s deliveries that is still loading, if any (then the command waits for it).
    func loadingPartition(of command: Command) -> Int? {
        guard let ownership else { return nil }
        func loading(_ key: DeliveryKey) -> Int? {
            let partition = ownership.map.partition(of: key)
            if case .loading = partitions[partition] { return partition }
            return nil
        }
        switch command {
        case .start: return nil
        case .events(let events, _): return events.lazy.compactMap { loading($0.0) }.first
        case .receipt(let key, _, _, _, _): return loading(key)
        }
    }

    /// The epoch `partition` is loaded under, if its lease is still valid at that epoch; nil: do not act on it.
    func actingEpoch(of partition: Int) -> Int64? {
        guard let ownership, case .loaded(let epoch) = partitions[partition], ownership.epoch(of: partition) == epoch else {
            return nil
        }
        return epoch
    }

    /// Whether the delivery `key` may be acted on after its commit; on a single server, always.
    func mayAct(on key: DeliveryKey) -> Bool {
        guard let ownership else { return true }
        return actingEpoch(of: ownership.map.partition(of: key)) != nil
    }

    /// The first partition `command` names that cannot be acted on now (not loaded here, or its lease lapsed); else
    /// nil, and the epochs of the partitions it names are in `fence`.
    func unheldPartition(of command: Command, fence: inout [Int: Int64]) -> Int? {
        guard let ownership else { return nil }
        func check(_ key: DeliveryKey) -> Int? {
            let partition = ownership.map.partition(of: key)
            if fence[partition] != nil { return nil }
            guard let epoch = actingEpoch(of: partition) else { return partition }
            fence[partition] = epoch
            return nil
        }
        switch command {
        case .start: return nil
        case .events(let events, _):
            for (key, _) in events {
                if let partition = check(key) { return partition }
            }
            return nil
        case .receipt(let key, _, _, _, _): return check(key)
        }
    }

    /// A command that cannot be applied here: its caller gets ``NotPartitionOwner``. Timer events of deliveries still
    /// in the table (a lease that lapsed and may be renewed) are tried again a second later; other events without a
    /// caller (a provider's verdict) are dropped: the partition's next owner — this node again, once it reloads
    /// it — asks again for what they answered.
    func reject(_ command: Command, partition: Int, now: Timestamp) {
        let error = NotPartitionOwner(partition: partition)
        switch command {
        case .start(_, _, let continuation):
            continuation.resume(throwing: error)
        case .events(let events, let continuation):
            for (key, event) in events {
                if case .timerFired = event { retryTimers(of: key, after: now) }
            }
            if let continuation {
                continuation.resume(throwing: error)
            } else if events.contains(where: { if case .timerFired = $0.1 { false } else { true } }) {
                logger.warning("events for a partition this node no longer acts on were dropped", [
                    "partition": .int(Int64(partition)), "events": .string(events.map(\.1.logKind).joined(separator: ",")),
                ])
            }
        case .receipt(let key, let events, let sender, let acknowledgement, let completion):
            // A receipt for a partition not held here at all goes to its owner (one that lapsed here waits for this
            // node to renew or lose it: its client tries again).
            if partitions[partition] == nil, forwarder != nil {
                forwardReceipt(key: key, events: events, sender: sender, acknowledgement: acknowledgement, partition: partition,
                               completion: completion)
            } else {
                completion(.failure(error))
            }
        }
    }

    /// The partitions a new delivery may be started in now, in partition order.
    func startablePartitions() -> [LeaseRef] {
        partitions.keys.sorted().compactMap { partition in
            actingEpoch(of: partition).map { LeaseRef(partition: partition, epoch: $0) }
        }
    }

    /// Waits while the partition of `key` loads; throws ``NotPartitionOwner`` when it is not loaded here.
    func waitUntilPartitionLoaded(of key: DeliveryKey) async throws {
        guard let ownership else { return }
        let partition = ownership.map.partition(of: key)
        while case .loading = partitions[partition] {
            try await clock.sleep(until: clock.now() + .milliseconds(tickMilliseconds))
        }
        guard actingEpoch(of: partition) != nil else { throw NotPartitionOwner(partition: partition) }
    }
}
