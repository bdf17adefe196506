import Testing
@testable import TandemCore

/// The locality-preserving id index: correctness for the id shapes the scheduler and callers
/// produce, bounded probe lengths for strided ids, and the chain / pool / rebuild machinery.
@Suite("Timer wheel id index")
struct TimerWheelIndexTests {
    enum IdShape: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `row × 4 + kind`, rows sequential: the scheduler's ids.
        case rowAndKind
        case multiplesOf4
        case multiplesOf1024
        case random
        /// Every id has the same low + high 32-bit sum, so all share one bin (worst case).
        case colliding

        var testDescription: String {
            rawValue
        }

        /// The id of the `ordinal`-th timer (distinct ordinals give distinct ids).
        func id(_ ordinal: UInt64) -> UInt64 {
            switch self {
            case .rowAndKind: (1_000_000 + ordinal / 3) * 4 + ordinal % 3
            case .multiplesOf4: ordinal * 4
            case .multiplesOf1024: (ordinal + 7) * 1024
            case .random:
                { var generator = SplitMix64(seed: ordinal); return generator.next() }()
            case .colliding: (ordinal << 32) | (0xDEAD_BEEF &- ordinal) & 0xFFFF_FFFF
            }
        }
    }

    @Test("schedule/cancel/reschedule/advance with each id shape match the reference model",
          arguments: IdShape.allCases)
    func matchesReference(shape: IdShape) {
        var rng = SplitMix64(seed: 0x1D5 &+ UInt64(shape.rawValue.count))
        var wheel = TimerWheel(now: Tick(1000))
        var model = ReferenceTimers(now: 1000)
        // A sliding window of ordinals: new ids keep arriving, old ones are cancelled or fire.
        var next: UInt64 = 0
        let operations = shape == .colliding ? 6000 : 40_000
        for operation in 0..<operations {
            let roll = rng.below(100)
            if roll < 45 {
                let ordinal = rng.below(10) == 0 && next > 0 ? rng.below(next) : next
                if ordinal == next {
                    next += 1
                }
                let id = shape.id(ordinal)
                let deadline = model.now + 1 + rng.below(rng.below(2) == 0 ? 300 : 50_000)
                #expect(wheel.schedule(TimerID(id), at: Tick(deadline)) == model.schedule(id, at: deadline))
            } else if roll < 80 {
                let ordinal = next > 3000 ? next - 1 - rng.below(3000) : rng.below(next + 1)
                let id = shape.id(ordinal)
                #expect(wheel.cancel(TimerID(id)) == model.cancel(id), "op \(operation): cancel \(id)")
            } else {
                let target = model.now + 1 + rng.below(200)
                var fired: [(id: UInt64, deadline: UInt64)] = []
                wheel.advance(to: Tick(target)) { fired.append(($0.rawValue, $1.rawValue)) }
                let expected = model.advance(to: target)
                let normalised = fired.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
                #expect(normalised.elementsEqual(expected) { $0.id == $1.id && $0.deadline == $1.deadline },
                        "op \(operation): advance to \(target)")
            }
            #expect(wheel.count == model.pending.count)
            if operation % 2000 == 0 {
                let violation = wheel.invariantViolation()
                #expect(violation == nil, "op \(operation): \(violation ?? "")")
            }
        }
        for (id, deadline) in model.pending.prefix(500) {
            #expect(wheel.deadline(of: TimerID(id)) == Tick(deadline))
        }
        #expect(wheel.invariantViolation() == nil)
    }

    @Test("probe lengths stay bounded: sequential and strided ids read one bin, random ids rarely two",
          arguments: [IdShape.rowAndKind, .multiplesOf4, .multiplesOf1024, .random])
    func probeLengths(shape: IdShape) {
        var wheel = TimerWheel(now: .zero)
        var rng = SplitMix64(seed: 17)
        for ordinal in 0..<300_000 as Range<UInt64> {
            wheel.schedule(TimerID(shape.id(ordinal)), at: Tick(1 + rng.below(17_280_000)))
        }
        // Churn: cancel the oldest, schedule new ones, so every bin has seen removals too.
        for ordinal in 300_000..<400_000 as Range<UInt64> {
            wheel.cancel(TimerID(shape.id(ordinal - 300_000)))
            wheel.schedule(TimerID(shape.id(ordinal)), at: Tick(1 + rng.below(17_280_000)))
        }
        let statistics = wheel.indexStatistics()
        print("index probe lengths, \(shape.rawValue), 300k pending: mean \(statistics.meanProbe), max \(statistics.maxProbe), "
            + "longest chain \(statistics.longestChain), overflow bins \(statistics.overflowBins) of \(statistics.bins)")
        switch shape {
        case .rowAndKind, .multiplesOf4, .multiplesOf1024:
            #expect(statistics.maxProbe <= 2)
            #expect(statistics.meanProbe < 1.05)
        case .random:
            #expect(statistics.maxProbe <= 4)
            #expect(statistics.meanProbe < 1.2)
        case .colliding:
            Issue.record("not a bounded shape")
        }
        #expect(wheel.invariantViolation() == nil)
    }

    @Test("consecutive ids land in consecutive bins (the locality the scheduler relies on)")
    func consecutiveBins() {
        let wheel = TimerWheel(now: .zero, capacity: 1_000_000)
        let binCount = wheel.indexCapacity / TimerWheel.maximumMeanBinLoad
        var adjacent = 0
        for id in stride(from: UInt64(4_000_000), to: 4_100_000, by: 1) {
            let step = (wheel.homeBin(id + 1) - wheel.homeBin(id)) / TimerWheel.binWords
            if step == 1 || step == 1 - binCount {
                adjacent += 1
            }
        }
        #expect(adjacent == 100_000)
    }

    @Test("ids sharing one bin chain through overflow bins, which return to the pool when emptied")
    func overflowChains() {
        var wheel = TimerWheel(now: .zero)
        var model = ReferenceTimers(now: 0)
        var rng = SplitMix64(seed: 99)
        let ids = (0..<500 as Range<UInt64>).map { IdShape.colliding.id($0) }
        for id in ids {
            let deadline = 1 + rng.below(1000)
            #expect(wheel.schedule(TimerID(id), at: Tick(deadline)) == model.schedule(id, at: deadline))
        }
        let full = wheel.indexStatistics()
        #expect(full.longestChain == 500)
        #expect(full.maxProbe == (500 + TimerWheel.binSlots - 1) / TimerWheel.binSlots)
        // A copy shares the chains until one side writes.
        var copy = wheel
        var order = ids
        for index in stride(from: order.count - 1, to: 0, by: -1) {
            order.swapAt(index, Int(rng.below(UInt64(index + 1))))
        }
        for id in order.prefix(250) {
            #expect(wheel.cancel(TimerID(id)) == model.cancel(id))
        }
        #expect(copy.count == 500 && copy.invariantViolation() == nil)
        #expect(wheel.invariantViolation() == nil)
        let fired = wheel.advance(to: Tick(500))
        #expect(Set(fired.map(\.rawValue)) == Set(model.advance(to: 500).map(\.id)))
        for id in ids {
            #expect(wheel.cancel(TimerID(id)) == model.cancel(id))
        }
        #expect(wheel.isEmpty && wheel.indexStatistics().overflowBins == 0)
        #expect(wheel.invariantViolation() == nil)
        #expect(copy.advance(to: Tick(2000)).count == 500)
        #expect(copy.invariantViolation() == nil)
    }

    @Test("index rebuilds (growth) keep every timer findable, nodes and lists in place")
    func rebuildKeepsTimers() {
        var wheel = TimerWheel(now: .zero)
        var shapes = IdShape.allCases.filter { $0 != .colliding }.makeIterator()
        var ordinal: UInt64 = 0
        var lastCapacity = wheel.indexCapacity
        var rebuilds = 0
        while let shape = shapes.next() {
            for _ in 0..<20_000 {
                ordinal += 1
                wheel.schedule(TimerID(shape.id(ordinal)), at: Tick(1 + ordinal % 100_000))
                if wheel.indexCapacity != lastCapacity {
                    rebuilds += 1
                    lastCapacity = wheel.indexCapacity
                }
            }
        }
        #expect(rebuilds >= 8)
        #expect(wheel.count == 80_000)
        #expect(wheel.invariantViolation() == nil)
        #expect(wheel.deadline(of: TimerID(IdShape.rowAndKind.id(1))) == Tick(2))
    }

    @Test("a cancel followed by a schedule reuses the freed node (LIFO), so the slab stays flat")
    func lifoReuse() {
        var wheel = TimerWheel(now: .zero)
        for row in 0..<1000 as Range<UInt64> {
            wheel.schedule(TimerID(row * 4), at: Tick(3000))
        }
        let highWater = wheel.slabHighWater
        let freed = wheel.find(4 * 500)
        wheel.cancel(TimerID(4 * 500))
        wheel.schedule(TimerID(4 * 5000), at: Tick(3000))
        #expect(wheel.find(4 * 5000) == freed)
        #expect(wheel.slabHighWater == highWater)
    }
}
