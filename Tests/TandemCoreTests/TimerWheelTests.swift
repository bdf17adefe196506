import Testing
@testable import TandemCore

@Suite("Timer wheel behaviour")
struct TimerWheelTests {
    /// Ticks per unit at a 10 ms tick.
    static let second: UInt64 = 100
    static let day: UInt64 = 86_400 * second

    @Test("a timer fires when time reaches its deadline and not one tick before")
    func firesAtDeadline() {
        var wheel = TimerWheel(now: Tick(1000))
        #expect(wheel.schedule(TimerID(7), at: Tick(1500)) == .scheduled)
        #expect(wheel.count == 1)
        #expect(wheel.contains(TimerID(7)))
        #expect(wheel.deadline(of: TimerID(7)) == Tick(1500))
        #expect(wheel.advance(to: Tick(1499)).isEmpty)
        #expect(wheel.advance(to: Tick(1500)) == [TimerID(7)])
        #expect(wheel.isEmpty)
        #expect(!wheel.contains(TimerID(7)))
        #expect(wheel.advance(to: Tick(9999)).isEmpty)
    }

    @Test("a deadline at or before now is already due and is not kept", arguments: [0, 1, 999, 1000] as [UInt64])
    func alreadyDue(deadline: UInt64) {
        var wheel = TimerWheel(now: Tick(1000))
        #expect(wheel.schedule(TimerID(1), at: Tick(deadline)) == .alreadyDue)
        #expect(wheel.isEmpty)
        #expect(wheel.nextDeadline == nil)
        #expect(wheel.cancel(TimerID(1)) == false)
        #expect(wheel.advance(to: Tick(5000)).isEmpty)
    }

    @Test("rescheduling a pending timer into the past removes it and reports it due")
    func rescheduleIntoPast() {
        var wheel = TimerWheel(now: Tick(10))
        wheel.schedule(TimerID(1), at: Tick(100))
        #expect(wheel.schedule(TimerID(1), at: Tick(10)) == .alreadyDue)
        #expect(wheel.isEmpty)
        #expect(wheel.advance(to: Tick(200)).isEmpty)
        #expect(wheel.invariantViolation() == nil)
    }

    @Test("a cancelled timer never fires", arguments: [1, 63, 64, 4096, 3 * day, 1 << 37] as [UInt64])
    func cancelThenAdvance(delay: UInt64) {
        var wheel = TimerWheel(now: Tick(77))
        wheel.schedule(TimerID(1), at: Tick(77 + delay))
        wheel.schedule(TimerID(2), at: Tick(77 + delay))
        #expect(wheel.cancel(TimerID(1)) == true)
        #expect(wheel.cancel(TimerID(1)) == false)
        #expect(wheel.count == 1)
        #expect(wheel.advance(to: Tick(77 + delay)) == [TimerID(2)])
        #expect(wheel.advance(to: Tick(UInt64.max)).isEmpty)
    }

    @Test("cancelling an unknown or already fired id returns false")
    func cancelUnknown() {
        var wheel = TimerWheel(now: .zero)
        #expect(wheel.cancel(TimerID(123)) == false)
        wheel.schedule(TimerID(5), at: Tick(3))
        #expect(wheel.cancel(TimerID(6)) == false)
        #expect(wheel.advance(to: Tick(3)) == [TimerID(5)])
        #expect(wheel.cancel(TimerID(5)) == false)
    }

    @Test("rescheduling moves the deadline and the timer fires once, at the new deadline only", arguments: [
        (500, 20), (500, 63), (500, 64), (500, 5000), (20, 500), (70, 4100), (4100, 70), (3 * day, 30 * second),
    ] as [(UInt64, UInt64)])
    func reschedule(first: UInt64, second: UInt64) {
        var wheel = TimerWheel(now: Tick(10))
        #expect(wheel.schedule(TimerID(9), at: Tick(10 + first)) == .scheduled)
        #expect(wheel.schedule(TimerID(9), at: Tick(10 + second)) == .scheduled)
        #expect(wheel.count == 1)
        #expect(wheel.deadline(of: TimerID(9)) == Tick(10 + second))
        var firings: [UInt64] = []
        while let next = wheel.nextDeadline {
            for _ in wheel.advance(to: next) {
                firings.append(next.rawValue)
            }
        }
        #expect(firings == [10 + second])
        #expect(wheel.advance(to: Tick(10 + max(first, second) + 1)).isEmpty)
    }

    @Test("far-future timers fire at their exact tick, not a coarse slot's", arguments: [
        3 * day, 3 * day + 1, 30 * day, 365 * day, 1 << 36 - 1, 1 << 36, 30 * 365 * day, 1 << 40 + 12345,
    ] as [UInt64])
    func farFuture(delay: UInt64) {
        for start in [0, 1, 4095, 1 << 36 - 2] as [UInt64] {
            let deadline = start + delay
            // Straight jump to one tick before, then to the deadline.
            var jumping = TimerWheel(now: Tick(start))
            jumping.schedule(TimerID(1), at: Tick(deadline))
            #expect(jumping.advance(to: Tick(deadline - 1)).isEmpty)
            #expect(jumping.invariantViolation() == nil)
            #expect(jumping.advance(to: Tick(deadline)) == [TimerID(1)])

            // Stepping via nextDeadline: every wake-up is at or before the deadline.
            var stepping = TimerWheel(now: Tick(start))
            stepping.schedule(TimerID(1), at: Tick(deadline))
            var wakeups = 0
            var firedAt: UInt64?
            while let next = stepping.nextDeadline {
                #expect(next.rawValue <= deadline)
                wakeups += 1
                if !stepping.advance(to: next).isEmpty {
                    firedAt = next.rawValue
                }
            }
            #expect(firedAt == deadline)
            #expect(wakeups <= 8)

            // Overshooting also fires it (late by the overshoot, never early).
            var overshooting = TimerWheel(now: Tick(start))
            overshooting.schedule(TimerID(1), at: Tick(deadline))
            #expect(overshooting.advance(to: Tick(deadline + 12_345)) == [TimerID(1)])
        }
    }

    @Test("a timer one tick ahead across the 2^36 boundary fires at that tick")
    func overflowBoundary() {
        var wheel = TimerWheel(now: Tick(1 << 36 - 1))
        wheel.schedule(TimerID(1), at: Tick(1 << 36))
        #expect(wheel.placement(of: TimerID(1)) == .overflow)
        #expect(wheel.nextDeadline == Tick(1 << 36))
        #expect(wheel.advance(to: Tick(1 << 36)) == [TimerID(1)])
    }

    @Test("the largest deadline is reachable")
    func maximumDeadline() {
        var wheel = TimerWheel(now: .zero)
        wheel.schedule(TimerID(1), at: Tick(UInt64.max))
        wheel.schedule(TimerID(2), at: Tick(UInt64.max - 1))
        #expect(wheel.advance(to: Tick(UInt64.max - 2)).isEmpty)
        #expect(wheel.advance(to: Tick(UInt64.max - 1)) == [TimerID(2)])
        #expect(wheel.advance(to: Tick(UInt64.max)) == [TimerID(1)])
    }

    @Test("advance fires everything due and nothing early, in non-decreasing deadline order")
    func orderAndCompleteness() {
        var wheel = TimerWheel(now: Tick(5))
        var deadlines: [UInt64: UInt64] = [:]
        var order: [UInt64] = []
        for index in 0..<3000 as Range<UInt64> {
            let deadline = 6 + (index &* 2_654_435_761) % 9000
            let id = index &* 0x1_0000_0001 | 3
            wheel.schedule(TimerID(id), at: Tick(deadline))
            deadlines[id] = deadline
            order.append(id)
        }
        var now: UInt64 = 5
        var firedTotal = 0
        for step in [1, 2, 60, 64, 1, 700, 4096, 3, 5000] as [UInt64] {
            now += step
            var fired: [(TimerID, Tick)] = []
            wheel.advance(to: Tick(now)) { fired.append(($0, $1)) }
            let expected = order.filter { (deadlines[$0] ?? 0) <= now && (deadlines[$0] ?? 0) > now - step }
            #expect(fired.map(\.0.rawValue).sorted() == expected.sorted())
            for (id, deadline) in fired {
                #expect(deadline.rawValue == deadlines[id.rawValue])
                #expect(deadline.rawValue <= now)
            }
            for pair in zip(fired, fired.dropFirst()) {
                #expect(pair.0.1 <= pair.1.1)
            }
            firedTotal += fired.count
            #expect(wheel.invariantViolation() == nil)
        }
        #expect(firedTotal == 3000)
        #expect(wheel.isEmpty)
    }

    @Test("advancing to an earlier or equal time does nothing")
    func timeNeverMovesBack() {
        var wheel = TimerWheel(now: Tick(100))
        wheel.schedule(TimerID(1), at: Tick(150))
        #expect(wheel.advance(to: Tick(50)).isEmpty)
        #expect(wheel.now == Tick(100))
        #expect(wheel.advance(to: Tick(100)).isEmpty)
        #expect(wheel.schedule(TimerID(2), at: Tick(100)) == .alreadyDue)
        #expect(wheel.advance(to: Tick(150)) == [TimerID(1)])
    }

    @Test("nextDeadline is exact without cancellations and a lower bound after them")
    func nextDeadlineBound() {
        var wheel = TimerWheel(now: Tick(1000))
        #expect(wheel.nextDeadline == nil)
        wheel.schedule(TimerID(1), at: Tick(1000 + 3 * Self.day))
        #expect(wheel.nextDeadline == Tick(1000 + 3 * Self.day))
        wheel.schedule(TimerID(2), at: Tick(1000 + 30 * Self.second))
        #expect(wheel.nextDeadline == Tick(1000 + 30 * Self.second))
        wheel.schedule(TimerID(3), at: Tick(1000 + 30 * Self.second + 10))
        wheel.schedule(TimerID(4), at: Tick(1005))
        #expect(wheel.nextDeadline == Tick(1005))
        #expect(wheel.cancel(TimerID(4)) == true)
        #expect(wheel.nextDeadline == Tick(1000 + 30 * Self.second))

        // Cancelling the earliest of a shared slot leaves a stale (earlier) bound.
        #expect(wheel.cancel(TimerID(2)) == true)
        let bound = wheel.nextDeadline
        #expect(bound == Tick(1000 + 30 * Self.second)) // stale: the cancelled timer's deadline
        #expect(bound.map { $0 <= Tick(1000 + 30 * Self.second + 10) && $0 > wheel.now } == true)
        if let bound {
            #expect(wheel.advance(to: bound).isEmpty)
        }
        #expect(wheel.nextDeadline == Tick(1000 + 30 * Self.second + 10))
    }

    @Test("overflow timers report a lower-bound nextDeadline and enter the levels in their block")
    func overflowNextDeadline() {
        var wheel = TimerWheel(now: .zero)
        wheel.schedule(TimerID(1), at: Tick(5 << 36 + 17))
        wheel.schedule(TimerID(2), at: Tick(2 << 36 + 9))
        wheel.schedule(TimerID(3), at: Tick(2 << 36 + 1_000_000))
        #expect(wheel.nextDeadline == Tick(2 << 36 + 9))
        #expect(wheel.cancel(TimerID(2)) == true)
        #expect(wheel.nextDeadline.map { $0 <= Tick(2 << 36 + 1_000_000) } == true)
        #expect(wheel.advance(to: Tick(2 << 36 + 999_999)).isEmpty)
        #expect(wheel.placement(of: TimerID(3)) == TimerWheel.placement(ofDeadline: Tick(2 << 36 + 1_000_000), now: wheel.now))
        #expect(wheel.placement(of: TimerID(3)) != .overflow)
        #expect(wheel.placement(of: TimerID(1)) == .overflow)
        #expect(wheel.advance(to: Tick(2 << 36 + 1_000_000)) == [TimerID(3)])
        #expect(wheel.advance(to: Tick(5 << 36 + 16)).isEmpty)
        #expect(wheel.advance(to: Tick(5 << 36 + 17)) == [TimerID(1)])
    }

    @Test("the buffer and callback variants report the same firings")
    func advanceVariants() {
        var wheel = TimerWheel(now: .zero)
        for index in 1...100 as ClosedRange<UInt64> {
            wheel.schedule(TimerID(index), at: Tick(index * 37))
        }
        var copy = wheel
        var buffer: [TimerID] = [TimerID(0)]
        wheel.advance(to: Tick(1850), into: &buffer)
        var pairs: [(TimerID, Tick)] = []
        copy.advance(to: Tick(1850)) { pairs.append(($0, $1)) }
        #expect(buffer == [TimerID(0)] + (1...50).map { TimerID($0) })
        #expect(pairs.map(\.0) == Array(buffer.dropFirst()))
        #expect(pairs.map(\.1.rawValue) == (1...50).map { $0 * 37 })
        #expect(copy.count == 50 && wheel.count == 50)
    }

    @Test("a long idle gap is crossed in one call with few visits")
    func longIdleGap() {
        var wheel = TimerWheel(now: .zero)
        for index in 0..<10_000 as Range<UInt64> {
            wheel.schedule(TimerID(index), at: Tick(2 * Self.day + index * 997))
        }
        #expect(wheel.advance(to: Tick(2 * Self.day - 1)).isEmpty)
        let fired = wheel.advance(to: Tick(400 * Self.day))
        #expect(fired.count == 10_000)
        #expect(fired == (0..<10_000).map { TimerID($0) })
    }

    @Test("cancelled timers free their nodes: churn at constant count grows neither the index nor the slab")
    func churnKeepsTableSize() {
        var wheel = TimerWheel(now: .zero)
        for index in 0..<1000 as Range<UInt64> {
            wheel.schedule(TimerID(index), at: Tick(10 + index))
        }
        let capacity = wheel.indexCapacity
        let slab = wheel.slabHighWater
        for round in 1...20 as ClosedRange<UInt64> {
            for index in 0..<1000 as Range<UInt64> {
                wheel.cancel(TimerID(index + (round - 1) * 1000))
                wheel.schedule(TimerID(index + round * 1000), at: Tick(10 + index))
            }
        }
        #expect(wheel.count == 1000)
        #expect(wheel.indexCapacity == capacity)
        #expect(wheel.slabHighWater == slab)
        #expect(wheel.invariantViolation() == nil)
    }

    @Test("a copy is independent: mutating one never changes the other")
    func copyOnWrite() {
        var original = TimerWheel(now: .zero)
        for index in 1...200 as ClosedRange<UInt64> {
            original.schedule(TimerID(index), at: Tick(index * 10))
        }
        var copy = original
        copy.cancel(TimerID(1))
        copy.schedule(TimerID(500), at: Tick(5))
        #expect(original.count == 200 && copy.count == 200)
        #expect(original.deadline(of: TimerID(1)) == Tick(10))
        #expect(!original.contains(TimerID(500)))
        let firedFromCopy = copy.advance(to: Tick(2000))
        #expect(firedFromCopy.first == TimerID(500))
        #expect(original.count == 200)
        #expect(original.advance(to: Tick(10)) == [TimerID(1)])
        #expect(original.invariantViolation() == nil && copy.invariantViolation() == nil)
    }

    @Test("a presized wheel does not grow up to its capacity")
    func presized() {
        var wheel = TimerWheel(now: .zero, capacity: 50_000)
        let size = wheel.indexCapacity
        for index in 0..<50_000 as Range<UInt64> {
            wheel.schedule(TimerID(index &* 0x9E37_79B9), at: Tick(1 + index % 7000))
        }
        #expect(wheel.indexCapacity == size)
        #expect(wheel.invariantViolation() == nil)
    }

    @Test("many timers sharing one deadline all fire at it, together")
    func sharedDeadline() {
        var wheel = TimerWheel(now: Tick(3))
        for index in 0..<5000 as Range<UInt64> {
            wheel.schedule(TimerID(index << 20), at: Tick(100_000))
        }
        for index in stride(from: 0, to: 5000, by: 2) as StrideTo<UInt64> {
            wheel.cancel(TimerID(index << 20))
        }
        #expect(wheel.advance(to: Tick(99_999)).isEmpty)
        let fired = wheel.advance(to: Tick(100_000))
        #expect(Set(fired) == Set(stride(from: 1, to: 5000, by: 2).map { TimerID(UInt64($0) << 20) }))
        #expect(fired.count == 2500)
    }
}
