import Synchronization
@testable import TandemHTTP

/// Collects access records from the server's callback.
final class RecordCollector: Sendable {
    private let records = Mutex<[AccessRecord]>([])

    var callback: @Sendable (AccessRecord) -> Void {
        { record in self.records.withLock { $0.append(record) } }
    }

    var all: [AccessRecord] { records.withLock { $0 } }
}
