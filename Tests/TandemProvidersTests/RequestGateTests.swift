import Synchronization
import TandemTestSupport
import Testing
@testable import TandemProviders

@Suite("Request gate")
struct RequestGateTests {
    /// Holds its runner until `open()`.
    final class Latch: Sendable {
        private let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        init() { (stream, continuation) = AsyncStream.makeStream() }
        func wait() async { for await _ in stream { return } }
        func open() { continuation.yield(); continuation.finish() }
    }

    /// What the bodies did, shared by their tasks.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func update(_ change: (inout Value) -> Void) { value.withLock { change(&$0) } }
        var current: Value { value.withLock { $0 } }
    }

    /// Polls until `gate` has `count` waiters (each enqueue happens on its own task).
    static func waitForWaiters(_ gate: RequestGate, _ count: Int) async {
        #expect(await eventually { gate.waiting == count })
    }

    @Test("beyond capacity requests wait; a freed slot goes to the urgent lane first, each lane in arrival order")
    func order() async throws {
        let gate = RequestGate(capacity: 1)
        let latch = Latch()
        let order = Shared<[String]>([])
        let holder = Task { try await gate.run(.bulk) { await latch.wait(); order.update { $0.append("first") } } }
        await Self.waitUntilFull(gate)
        var waiters: [Task<Void, any Error>] = []
        for (index, (name, lane)) in [("bulk-1", RequestGate.Lane.bulk), ("bulk-2", .bulk), ("pin-1", .urgent),
                                      ("pin-2", .urgent)].enumerated() {
            waiters.append(Task { try await gate.run(lane) { order.update { $0.append(name) } } })
            await Self.waitForWaiters(gate, index + 1)
        }
        latch.open()
        try await holder.value
        for waiter in waiters { try await waiter.value }
        #expect(order.current == ["first", "pin-1", "pin-2", "bulk-1", "bulk-2"])
        #expect(gate.waiting == 0)
    }

    @Test("no more than capacity bodies run at once, however many wait")
    func capacity() async throws {
        let gate = RequestGate(capacity: 3)
        let running = Shared((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await gate.run(.bulk) {
                        running.update { $0.now += 1; $0.most = max($0.most, $0.now) }
                        await Task.yield()
                        running.update { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.current.most == 3)
        #expect(gate.waiting == 0)
    }

    @Test("a cancelled waiter leaves its lane and throws; the slot goes to the next one")
    func cancellation() async throws {
        let gate = RequestGate(capacity: 1)
        let latch = Latch()
        let order = Shared<[String]>([])
        let holder = Task { try await gate.run(.bulk) { await latch.wait(); order.update { $0.append("first") } } }
        await Self.waitUntilFull(gate)
        let cancelled = Task { try await gate.run(.urgent) { order.update { $0.append("cancelled") } } }
        await Self.waitForWaiters(gate, 1)
        let next = Task { try await gate.run(.bulk) { order.update { $0.append("next") } } }
        await Self.waitForWaiters(gate, 2)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(gate.waiting == 1)
        latch.open()
        try await holder.value
        try await next.value
        #expect(order.current == ["first", "next"])
    }

    /// Polls until every slot of `gate` is taken.
    private static func waitUntilFull(_ gate: RequestGate) async {
        #expect(await eventually { gate.isFull })
    }
}
