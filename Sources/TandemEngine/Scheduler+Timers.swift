import TandemCore

extension Scheduler {
    /// A timer's id in the wheel: four kinds per delivery key, so ids stay dense and sequential.
    static func timerID(_ key: DeliveryKey, _ kind: TimerKind) -> TimerID {
        TimerID(UInt64(key.rawValue) &* 4 &+ UInt64(kindIndex(kind)))
    }

    static func kindIndex(_ kind: TimerKind) -> Int {
        switch kind {
        case .noDeliveryAck: 0
        case .noRead: 1
        case .lifetime: 2
        case .smsValidity: 3
        }
    }

    static func decode(_ id: TimerID) -> (DeliveryKey, TimerKind) {
        let kinds: [TimerKind] = [.noDeliveryAck, .noRead, .lifetime, .smsValidity]
        return (DeliveryKey(Int64(id.rawValue / 4)), kinds[Int(id.rawValue % 4)])
    }

    /// The first tick at or after `timestamp` (rounded up: a timer is never early).
    func tick(atOrAfter timestamp: Timestamp) -> Tick {
        let milliseconds = max(0, timestamp.milliseconds)
        return Tick(UInt64((milliseconds + tickMilliseconds - 1) / tickMilliseconds))
    }

    /// The tick `now` falls in (rounded down: the wheel never runs ahead of the clock).
    func tick(containing timestamp: Timestamp) -> Tick {
        Tick(UInt64(max(0, timestamp.milliseconds) / tickMilliseconds))
    }

    /// Puts a timer in the wheel; one already due (by the clock, or by the wheel) fires through the queue at once.
    func arm(_ kind: TimerKind, of key: DeliveryKey, at deadline: Timestamp) {
        guard deadline > clock.now() else {
            wheel.cancel(Self.timerID(key, kind))
            enqueue(.events([(key, .timerFired(kind))], nil))
            return
        }
        switch wheel.schedule(Self.timerID(key, kind), at: tick(atOrAfter: deadline)) {
        case .scheduled: break
        case .alreadyDue: enqueue(.events([(key, .timerFired(kind))], nil))
        }
    }

    /// After a failed commit of timer events: try them again a second later.
    func retryTimers(of key: DeliveryKey, after now: Timestamp) {
        guard let inFlight = entries[key] else { return }
        for (kind, _) in inFlight.entry.delivery.timers {
            _ = wheel.schedule(Self.timerID(key, kind), at: tick(atOrAfter: now + .seconds(1)))
        }
    }

    /// Advances the wheel to the clock and fires every due timer; returns how many fired. Their events
    /// are committed before this returns.
    @discardableResult
    public func fireDueTimers() async throws -> Int {
        let fired = wheel.advance(to: tick(containing: clock.now()))
        guard !fired.isEmpty else { return 0 }
        do {
            _ = try await recordHere(fired.map { id in
                let (key, kind) = Self.decode(id)
                return (key, DeliveryEvent.timerFired(kind))
            })
        } catch is NotPartitionOwner {
            // A cluster node whose lease lapsed: the timers are tried again a second later (or leave with the partition).
        } catch is PartitionLeaseLost {
            // The same, found by the commit's fence.
        }
        return fired.count
    }

    /// The instant the next timer is due, if any (a lower bound: never later than the true deadline).
    public var nextTimerDeadline: Timestamp? {
        wheel.nextDeadline.map { Timestamp(milliseconds: Int64($0.rawValue) * tickMilliseconds) }
    }

    /// Fires timers as the clock reaches them until the task is cancelled. Sleeps at most one tick at a
    /// time, so a timer armed while it sleeps is late by no more than a tick.
    public func run() async {
        while !Task.isCancelled {
            do {
                try await fireDueTimers()
            } catch {
                logger.error("firing timers failed", ["error": .string("\(error)")])
            }
            let now = clock.now()
            let wake = min(nextTimerDeadline ?? .init(milliseconds: .max), now + .milliseconds(tickMilliseconds))
            do {
                try await clock.sleep(until: max(wake, now))
            } catch {
                return
            }
        }
    }
}
