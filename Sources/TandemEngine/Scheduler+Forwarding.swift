import TandemCore

/// A cluster node's calls for deliveries it does not own (docs/cluster.md): forwarded to the owner, which applies
/// them as its own and answers after its commit — so a receipt answered 2xx here was committed there.
///
/// - Events (``record(_:)``) are split by partition: those of partitions held (or loading) here are applied here,
///   the others go to their owners, one call per partition; the outcomes come back in the events' order.
/// - A receipt (``submitReceipt(_:for:from:acknowledgement:completion:)``) whose partition is not held here is
///   forwarded when the pipeline finds so (``reject(_:partition:now:)``); a manual fallback request before it starts.
/// - The owner's side is ``applyForwarded(_:)``: applied here only, never forwarded again from here (a partition
///   that changed owner meanwhile answers ``NotPartitionOwner``, and the first node's client tries again).
/// - Results of this node's own sends and its timers never leave it (``recordHere(_:)``).
extension Scheduler {
    /// Sets where calls for other nodes' deliveries go (a cluster node; a single server has none).
    public func setForwarder(_ forwarder: any DeliveryForwarder) {
        self.forwarder = forwarder
    }

    /// The partition of `key`, when it is held by another node and this one forwards.
    func forwardedPartition(of key: DeliveryKey) -> Int? {
        guard let ownership, forwarder != nil else { return nil }
        let partition = ownership.map.partition(of: key)
        return partitions[partition] == nil ? partition : nil
    }

    func forward(_ call: ForwardedCall, partition: Int) async throws -> ForwardedAnswer {
        guard let forwarder else { throw NotPartitionOwner(partition: partition) }
        return try await forwarder.forward(call, partition: partition)
    }

    /// ``record(_:)`` on a cluster node: this node's share applied here, the rest forwarded by partition.
    func forwardingRecord(_ events: [(DeliveryKey, DeliveryEvent)]) async throws -> [EventOutcome] {
        var local: [Int] = []
        var remote: [Int: [Int]] = [:]
        for (index, (key, _)) in events.enumerated() {
            if let partition = forwardedPartition(of: key) { remote[partition, default: []].append(index) } else { local.append(index) }
        }
        guard !remote.isEmpty else { return try await recordHere(events) }
        var outcomes = [EventOutcome](repeating: .applied, count: events.count)
        if !local.isEmpty {
            for (index, outcome) in zip(local, try await recordHere(local.map { events[$0] })) { outcomes[index] = outcome }
        }
        for (partition, indices) in remote.sorted(by: { $0.key < $1.key }) {
            let answer = try await forward(.events(indices.map { events[$0] }), partition: partition)
            guard case .outcomes(let answered) = answer, answered.count == indices.count else {
                throw ForwardingFailed("the owner of partition \(partition) answered \(indices.count) events with \(answer)")
            }
            for (index, outcome) in zip(indices, answered) { outcomes[index] = outcome }
        }
        return outcomes
    }

    /// Sends a receipt the pipeline found for another node's partition to that node; `completion` gets its answer.
    func forwardReceipt(key: DeliveryKey, events: [DeliveryEvent], sender: ReceiptSender, acknowledgement: BWMIAcknowledgementWrite?,
                        partition: Int, completion: @escaping ReceiptCompletion) {
        let call = ForwardedCall.receipt(key: key, events: events, sender: sender, acknowledgement: acknowledgement.map {
            ForwardedAcknowledgement(delivery: $0.delivery, device: $0.device, at: $0.at)
        })
        Task {
            do {
                guard case .receipt(let outcome, let acknowledged, let liveCount) = try await self.forward(call, partition: partition) else {
                    throw ForwardingFailed("the owner answered a receipt with another kind of answer")
                }
                if let acknowledgement, let acknowledged {
                    acknowledgement.outcome = acknowledged
                    acknowledgement.liveCount = liveCount
                }
                completion(.success(outcome))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// A call another node forwarded: applied here, as if it had arrived here, and answered once committed. Throws
    /// ``NotPartitionOwner`` when a delivery it names is not in a partition held here.
    public func applyForwarded(_ call: ForwardedCall) async throws -> ForwardedAnswer {
        if let ownership {
            for key in call.keys where partitions[ownership.map.partition(of: key)] == nil {
                throw NotPartitionOwner(partition: ownership.map.partition(of: key))
            }
        }
        switch call {
        case .events(let events):
            return .outcomes(try await recordHere(events))
        case .receipt(let key, let events, let sender, let forwarded):
            let acknowledgement = forwarded.map { BWMIAcknowledgementWrite(delivery: $0.delivery, device: $0.device, at: $0.at) }
            let outcome = try await recordReceipt(events, for: key, from: sender, acknowledgement: acknowledgement)
            return .receipt(outcome, acknowledgement: outcome == .recorded ? acknowledgement?.outcome : nil,
                            liveCount: outcome == .recorded ? acknowledgement?.liveCount : nil)
        case .manualFallback(let key):
            return .manualFallback(try await requestManualFallbackHere(for: key))
        }
    }
}
