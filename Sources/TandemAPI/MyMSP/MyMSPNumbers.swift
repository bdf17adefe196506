import Synchronization
import TandemCore

/// msgnos for notifications, reserved from the shared space a block at a time (one durable write per block
/// instead of one per `send`). Numbers of a block left unused at shutdown are never used: gaps, as myMSP
/// allows. Not guaranteed: that a notification's msgno is above every event's made before it (events take
/// theirs from the space directly) — each kind increases on its own, and all are unique.
final class MyMSPNumbers: Sendable {
    private let directory: any MyMSPDirectory
    private let block: Int
    private let reserved = Mutex<ClosedRange<Int64>?>(nil)

    init(directory: any MyMSPDirectory, block: Int = 100) {
        self.directory = directory
        self.block = block
    }

    func next() async throws -> Int64 {
        if let number = take() { return number }
        let fresh = try await directory.mymspReserveNumbers(block)
        let number = fresh.lowerBound
        reserved.withLock { current in
            // A concurrent reservation may have refilled it meanwhile: then this block's rest is a gap.
            if current == nil, fresh.lowerBound < fresh.upperBound { current = (fresh.lowerBound + 1)...fresh.upperBound }
        }
        return number
    }

    private func take() -> Int64? {
        reserved.withLock { current in
            guard let range = current else { return nil }
            current = range.lowerBound < range.upperBound ? (range.lowerBound + 1)...range.upperBound : nil
            return range.lowerBound
        }
    }
}
