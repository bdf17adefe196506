import Testing
@testable import TandemCore

@Suite("Timer wheel memory")
struct TimerWheelMemoryTests {
    @Test("a million pending timers cost at most 64 bytes each, index included, at every growth step",
          arguments: [0, 1_000_000])
    func bytesPerTimer(preallocated: Int) {
        var wheel = TimerWheel(now: .zero, capacity: preallocated)
        var rng = SplitMix64(seed: 64)
        var worst = 0.0
        var lastCapacity = wheel.indexCapacity
        let hour: UInt64 = 360_000 // at 10 ms ticks
        while wheel.count < 1_000_000 {
            wheel.schedule(TimerID(rng.next()), at: Tick(1 + rng.below(hour)))
            let capacity = wheel.indexCapacity
            if capacity != lastCapacity && wheel.count >= 100_000 {
                // Just after a growth step: the worst moment for bytes per timer.
                worst = max(worst, Double(wheel.storageBytes) / Double(wheel.count))
            }
            lastCapacity = capacity
        }
        let perTimer = Double(wheel.storageBytes) / Double(wheel.count)
        #expect(perTimer <= 64, "\(perTimer) bytes per timer at 1M")
        #expect(worst <= 64, "\(worst) bytes per timer right after growth")
        #expect(wheel.invariantViolation() == nil)
    }

    @Test("node layout is 24 bytes, an index bin one 64-byte line")
    func nodeSize() {
        #expect(MemoryLayout<TimerWheel.Node>.stride == 24)
        #expect(TimerWheel.binBytes == 64)
    }

    @Test("slot lists give memory back as their timers are cancelled")
    func listsShrink() {
        var wheel = TimerWheel(now: .zero)
        for index in 0..<200_000 as Range<UInt64> {
            wheel.schedule(TimerID(index), at: Tick(1 + index % 300_000))
        }
        let full = wheel.storageBytes
        for index in 0..<199_000 as Range<UInt64> {
            wheel.cancel(TimerID(index))
        }
        // Slab and index keep their size (documented); the list entries (4–8 B per timer) are freed.
        let fixed = wheel.storage.nodeAndIndexBytes
        #expect(wheel.storageBytes - fixed < 100_000)
        #expect(full - fixed > 800_000)
        #expect(wheel.invariantViolation() == nil)
    }
}
