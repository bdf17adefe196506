import Synchronization

/// Log lines collected from a `Logger` sink.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: String { lines.withLock { $0.joined() } }
}
