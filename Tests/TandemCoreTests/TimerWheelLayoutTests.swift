import Testing
@testable import TandemCore

@Suite("Timer wheel slot arithmetic")
struct TimerWheelLayoutTests {
    struct PlacementCase: CustomTestStringConvertible, Sendable {
        let now: UInt64
        let deadline: UInt64
        let expected: TimerWheel.Placement

        var testDescription: String {
            "now \(now), deadline \(deadline) (+\(deadline &- now)) → \(expected)"
        }
    }

    static let placements: [PlacementCase] = [
        // From now = 0: exact level boundaries at 64^L.
        PlacementCase(now: 0, deadline: 1, expected: .slot(level: 0, slot: 1)),
        PlacementCase(now: 0, deadline: 63, expected: .slot(level: 0, slot: 63)),
        PlacementCase(now: 0, deadline: 64, expected: .slot(level: 1, slot: 1)),
        PlacementCase(now: 0, deadline: 65, expected: .slot(level: 1, slot: 1)),
        PlacementCase(now: 0, deadline: 127, expected: .slot(level: 1, slot: 1)),
        PlacementCase(now: 0, deadline: 128, expected: .slot(level: 1, slot: 2)),
        PlacementCase(now: 0, deadline: 4095, expected: .slot(level: 1, slot: 63)),
        PlacementCase(now: 0, deadline: 4096, expected: .slot(level: 2, slot: 1)),
        PlacementCase(now: 0, deadline: 262_143, expected: .slot(level: 2, slot: 63)),
        PlacementCase(now: 0, deadline: 262_144, expected: .slot(level: 3, slot: 1)),
        PlacementCase(now: 0, deadline: 1 << 24 - 1, expected: .slot(level: 3, slot: 63)),
        PlacementCase(now: 0, deadline: 1 << 24, expected: .slot(level: 4, slot: 1)),
        PlacementCase(now: 0, deadline: 1 << 30, expected: .slot(level: 5, slot: 1)),
        PlacementCase(now: 0, deadline: 1 << 36 - 1, expected: .slot(level: 5, slot: 63)),
        PlacementCase(now: 0, deadline: 1 << 36, expected: .overflow),
        PlacementCase(now: 0, deadline: UInt64.max, expected: .overflow),
        // Non-zero now: levels are aligned blocks, so the delay alone does not decide.
        PlacementCase(now: 100, deadline: 127, expected: .slot(level: 0, slot: 63)),
        PlacementCase(now: 100, deadline: 128, expected: .slot(level: 1, slot: 2)),
        PlacementCase(now: 100, deadline: 163, expected: .slot(level: 1, slot: 2)),
        PlacementCase(now: 100, deadline: 164, expected: .slot(level: 1, slot: 2)),
        PlacementCase(now: 100, deadline: 4095, expected: .slot(level: 1, slot: 63)),
        PlacementCase(now: 100, deadline: 4096, expected: .slot(level: 2, slot: 1)),
        PlacementCase(now: 100, deadline: 4196, expected: .slot(level: 2, slot: 1)),
        PlacementCase(now: 4000, deadline: 4095, expected: .slot(level: 1, slot: 63)),
        PlacementCase(now: 4000, deadline: 4100, expected: .slot(level: 2, slot: 1)),
        // now exactly on a level boundary.
        PlacementCase(now: 64, deadline: 65, expected: .slot(level: 0, slot: 1)),
        PlacementCase(now: 64, deadline: 127, expected: .slot(level: 0, slot: 63)),
        PlacementCase(now: 64, deadline: 128, expected: .slot(level: 1, slot: 2)),
        PlacementCase(now: 4096, deadline: 4096 + 63, expected: .slot(level: 0, slot: 63)),
        PlacementCase(now: 4096, deadline: 4096 + 64, expected: .slot(level: 1, slot: 1)),
        PlacementCase(now: 4096, deadline: 8191, expected: .slot(level: 1, slot: 63)),
        PlacementCase(now: 4096, deadline: 8192, expected: .slot(level: 2, slot: 2)),
        PlacementCase(now: 4096, deadline: 4096 + 4095, expected: .slot(level: 1, slot: 63)),
        PlacementCase(now: 4096, deadline: 4096 + 4096, expected: .slot(level: 2, slot: 2)),
        // One tick ahead, but across the 2^36 boundary: overflow (entered at the boundary).
        PlacementCase(now: 1 << 36 - 1, deadline: 1 << 36, expected: .overflow),
        PlacementCase(now: 1 << 36 + 5, deadline: 1 << 37 - 1, expected: .slot(level: 5, slot: 63)),
        PlacementCase(now: 1 << 36 + 5, deadline: 1 << 37, expected: .overflow),
        PlacementCase(now: UInt64.max - 1, deadline: UInt64.max, expected: .slot(level: 0, slot: 63)),
    ]

    @Test("a deadline lands in the level of the highest bit where it differs from now", arguments: placements)
    func placement(_ example: PlacementCase) {
        #expect(TimerWheel.placement(ofDeadline: Tick(example.deadline), now: Tick(example.now)) == example.expected)
    }

    @Test("a scheduled timer is stored where the arithmetic says", arguments: placements)
    func storedPlacement(_ example: PlacementCase) {
        var wheel = TimerWheel(now: Tick(example.now))
        #expect(wheel.schedule(TimerID(42), at: Tick(example.deadline)) == .scheduled)
        #expect(wheel.placement(of: TimerID(42)) == example.expected)
        #expect(wheel.invariantViolation() == nil)
    }

    struct SlotStartCase: Sendable, CustomTestStringConvertible {
        let level: Int
        let slot: Int
        let now: UInt64
        let start: UInt64

        var testDescription: String {
            "level \(level) slot \(slot) at now \(now) starts at \(start)"
        }
    }

    @Test("a slot starts at the level block containing now plus slot × width", arguments: [
        SlotStartCase(level: 0, slot: 5, now: 0, start: 5),
        SlotStartCase(level: 0, slot: 63, now: 64 + 3, start: 127),
        SlotStartCase(level: 1, slot: 1, now: 0, start: 64),
        SlotStartCase(level: 1, slot: 46, now: 0, start: 2944),
        SlotStartCase(level: 1, slot: 63, now: 4096 + 1, start: 4096 + 4032),
        SlotStartCase(level: 2, slot: 1, now: 4000, start: 4096),
        SlotStartCase(level: 2, slot: 56, now: 25_690_112, start: 25_919_488),
        SlotStartCase(level: 3, slot: 34, now: 16_777_216, start: 25_690_112),
        SlotStartCase(level: 4, slot: 1, now: 0, start: 16_777_216),
        SlotStartCase(level: 5, slot: 63, now: 1 << 36 + 7, start: 1 << 36 + 63 << 30),
    ])
    func slotStart(_ example: SlotStartCase) {
        #expect(TimerWheel.slotStart(level: example.level, slot: example.slot, elapsed: example.now) == example.start)
    }

    @Test("the doc comment's worked example: 30 s and 3 days at 10 ms ticks cascade as described")
    func workedExample() {
        var wheel = TimerWheel(now: .zero)
        let thirtySeconds = TimerID(1)
        let threeDays = TimerID(2)
        wheel.schedule(thirtySeconds, at: Tick(3000))
        wheel.schedule(threeDays, at: Tick(25_920_000))
        #expect(wheel.placement(of: thirtySeconds) == .slot(level: 1, slot: 46))
        #expect(wheel.placement(of: threeDays) == .slot(level: 4, slot: 1))

        #expect(wheel.advance(to: Tick(2943)).isEmpty)
        #expect(wheel.placement(of: thirtySeconds) == .slot(level: 1, slot: 46))
        #expect(wheel.advance(to: Tick(2944)).isEmpty)
        #expect(wheel.placement(of: thirtySeconds) == .slot(level: 0, slot: 56))
        #expect(wheel.advance(to: Tick(2999)).isEmpty)
        #expect(wheel.advance(to: Tick(3000)) == [thirtySeconds])

        #expect(wheel.advance(to: Tick(16_777_215)).isEmpty)
        #expect(wheel.placement(of: threeDays) == .slot(level: 4, slot: 1))
        #expect(wheel.advance(to: Tick(16_777_216)).isEmpty)
        #expect(wheel.placement(of: threeDays) == .slot(level: 3, slot: 34))
        #expect(wheel.advance(to: Tick(25_690_112)).isEmpty)
        #expect(wheel.placement(of: threeDays) == .slot(level: 2, slot: 56))
        #expect(wheel.advance(to: Tick(25_919_488)).isEmpty)
        #expect(wheel.placement(of: threeDays) == .slot(level: 1, slot: 8))
        #expect(wheel.advance(to: Tick(25_919_999)).isEmpty)
        #expect(wheel.advance(to: Tick(25_920_000)) == [threeDays])
        #expect(wheel.isEmpty)
    }
}
