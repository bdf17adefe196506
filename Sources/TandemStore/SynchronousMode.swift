/// SQLite's `PRAGMA synchronous` setting for a WAL database.
///
/// - ``normal``: a commit `write()`s its WAL frames but does not fsync them; committed data survives
///   a process crash (`kill -9`) but NOT an OS crash or power loss (the last commits may be lost,
///   the database stays consistent). This is what Tandem's "durable before success" rule requires.
/// - ``full``: additionally fsyncs the WAL on every commit; also survives power loss, at the cost
///   of one fsync per commit (group commit amortizes it over the batch).
public enum SynchronousMode: String, Sendable, Hashable, CaseIterable {
    case normal = "NORMAL"
    case full = "FULL"

    /// The integer `PRAGMA synchronous` reports for this mode.
    public var pragmaValue: Int64 {
        switch self {
        case .normal: return 1
        case .full: return 2
        }
    }
}
