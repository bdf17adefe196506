/// How a ``Connection`` is opened and configured.
public struct ConnectionOptions: Sendable, Hashable {
    /// Open with `SQLITE_OPEN_READONLY` (the file must exist and already be in WAL mode);
    /// otherwise `READWRITE | CREATE`, and `journal_mode=WAL` is set.
    public var readOnly: Bool
    /// How long a statement retries while another connection holds a conflicting lock before
    /// failing with ``StoreError/busy(message:sql:)``. Millisecond resolution.
    public var busyTimeout: Duration
    /// `PRAGMA synchronous` for this connection (only matters for connections that commit).
    public var synchronous: SynchronousMode
    /// How many distinct SQL texts keep a prepared statement; the least recently used is
    /// finalized beyond that. Not guaranteed: dynamic SQL (e.g. variable `IN (…)` lists) still
    /// pays a prepare on every new text.
    public var statementCacheCapacity: Int

    public init(
        readOnly: Bool = false,
        busyTimeout: Duration = .seconds(5),
        synchronous: SynchronousMode = .normal,
        statementCacheCapacity: Int = 64
    ) {
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
        self.synchronous = synchronous
        self.statementCacheCapacity = statementCacheCapacity
    }
}

extension Duration {
    /// Whole milliseconds, clamped to `0...Int32.max` (SQLite's busy-timeout unit).
    var clampedMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return seconds < 0 ? 0 : .max }
        return Int32(clamping: max(0, millis.partialValue + attoseconds / 1_000_000_000_000_000))
    }
}
