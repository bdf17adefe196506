import Testing
@testable import TandemCore


/// The obviously-correct model: a dictionary of pending deadlines, filtered and sorted on advance.
struct ReferenceTimers {
    var now: UInt64
    var pending: [UInt64: UInt64] = [:]

    mutating func schedule(_ id: UInt64, at deadline: UInt64) -> TimerWheel.ScheduleResult {
        if deadline <= now {
            pending[id] = nil
            return .alreadyDue
        }
        pending[id] = deadline
        return .scheduled
    }

    mutating func cancel(_ id: UInt64) -> Bool {
        pending.removeValue(forKey: id) != nil
    }

    /// Due timers as (id, deadline), by deadline, ties by id.
    mutating func advance(to target: UInt64) -> [(id: UInt64, deadline: UInt64)] {
        guard target > now else {
            return []
        }
        now = target
        let due = pending.filter { $0.value <= target }
        for id in due.keys {
            pending[id] = nil
        }
        return due
            .sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            .map { ($0.key, $0.value) }
    }

    var earliest: UInt64? {
        pending.values.min()
    }
}

@Suite("Timer wheel against a reference model")
struct TimerWheelRandomizedTests {
    /// Sparse ids of three shapes: small dense values, high-bit values, and scrambled 64-bit values.
    static func id(forKey key: UInt64) -> UInt64 {
        switch key % 3 {
        case 0: return key
        case 1: return key << 40 | 7
        default:
            var generator = SplitMix64(seed: key)
            return generator.next()
        }
    }

    static func deadline(now: UInt64, _ rng: inout SplitMix64) -> UInt64 {
        let roll = rng.below(100)
        if roll < 5 {
            return now - rng.below(min(now, 100) + 1)
        } else if roll < 35 {
            return now + 1 + rng.below(64)
        } else if roll < 60 {
            return now + 1 + rng.below(4096)
        } else if roll < 75 {
            return now + 1 + rng.below(1 << 20)
        } else if roll < 85 {
            return now + 1 + rng.below(1 << 30)
        } else if roll < 90 {
            return now + 1 + rng.below(1 << 40)
        } else {
            // Right at (or one off) a level boundary above now.
            let width = UInt64(1) << (6 * rng.below(7))
            let boundary = (now / width + 1 + rng.below(2)) * width
            return boundary + rng.below(3) - 1
        }
    }

    static func step(_ wheel: TimerWheel, _ rng: inout SplitMix64) -> UInt64 {
        let roll = rng.below(100)
        if roll < 55 {
            return 1 + rng.below(3)
        } else if roll < 80 {
            return 1 + rng.below(300)
        } else if roll < 90 {
            return wheel.nextDeadline.map { $0.rawValue - wheel.now.rawValue } ?? 1
        } else if roll < 95 {
            return rng.below(1 << 20)
        } else if roll < 98 {
            return rng.below(1 << 32)
        } else {
            return rng.below(1 << 40)
        }
    }

    @Test("100k random schedule/cancel/reschedule/advance operations match the reference exactly",
          arguments: [0x5EED_0001, 0xDEC0_DED5] as [UInt64])
    func matchesReference(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let start = rng.below(1 << 40)
        var wheel = TimerWheel(now: Tick(start))
        var model = ReferenceTimers(now: start)
        let keys: UInt64 = 2000
        var fired = 0
        var advances = 0
        var alreadyDue = 0
        var mismatches = 0

        for operation in 0..<100_000 {
            let roll = rng.below(100)
            if roll < 45 {
                let id = Self.id(forKey: rng.below(keys))
                let deadline = Self.deadline(now: model.now, &rng)
                let expected = model.schedule(id, at: deadline)
                let actual = wheel.schedule(TimerID(id), at: Tick(deadline))
                if actual != expected {
                    mismatches += 1
                }
                #expect(actual == expected, "op \(operation): schedule \(id) at \(deadline)")
                alreadyDue += expected == .alreadyDue ? 1 : 0
            } else if roll < 65 {
                let id = Self.id(forKey: rng.below(keys))
                let actual = wheel.cancel(TimerID(id))
                let expected = model.cancel(id)
                if actual != expected {
                    mismatches += 1
                }
                #expect(actual == expected, "op \(operation): cancel \(id)")
            } else {
                let target = model.now + Self.step(wheel, &rng)
                var actual: [(id: UInt64, deadline: UInt64)] = []
                wheel.advance(to: Tick(target)) { actual.append(($0.rawValue, $1.rawValue)) }
                let expected = model.advance(to: target)
                advances += 1
                fired += actual.count
                // Deadline order is guaranteed; order among equal deadlines is not.
                let inOrder = zip(actual, actual.dropFirst()).allSatisfy { $0.deadline <= $1.deadline }
                #expect(inOrder, "op \(operation): fired out of deadline order")
                let normalised = actual.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
                let same = normalised.elementsEqual(expected) { $0.id == $1.id && $0.deadline == $1.deadline }
                if !same {
                    mismatches += 1
                }
                #expect(same, "op \(operation): advance to \(target): \(actual.count) fired, \(expected.count) expected")
                #expect(actual.allSatisfy { $0.deadline <= target }, "op \(operation): fired early")
            }

            #expect(wheel.count == model.pending.count)
            #expect(wheel.now.rawValue == model.now)
            let earliest = model.earliest
            let next = wheel.nextDeadline?.rawValue
            #expect((next == nil) == (earliest == nil))
            if let next, let earliest {
                #expect(next > model.now && next <= earliest, "op \(operation): nextDeadline \(next), earliest \(earliest)")
            }
            if operation % 1000 == 0 {
                let violation = wheel.invariantViolation()
                #expect(violation == nil, "op \(operation): \(violation ?? "")")
            }
            if mismatches > 5 {
                Issue.record("stopping after repeated mismatches (seed \(seed))")
                return
            }
        }
        // The run must actually exercise firing, due-at-once and big jumps.
        #expect(fired > 20_000)
        #expect(advances > 30_000)
        #expect(alreadyDue > 500)
    }
}
