/// Prepared statements of one connection, keyed by SQL text, with LRU eviction (internal).
///
/// Not thread-safe: owned by its connection. Not guaranteed: eviction order beyond "least
/// recently checked out first"; statements currently in use are never evicted.
struct StatementCache {
    private(set) var entries: [String: PreparedStatement] = [:]
    let capacity: Int
    private var tick: UInt64 = 0
    /// Statements compiled (cached or temporary) since the connection opened.
    private(set) var prepares = 0
    /// Uses served by an already-compiled statement.
    private(set) var hits = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The cached statement for `sql` if present and idle, marked in use; `nil` otherwise.
    mutating func checkOut(_ sql: String) -> PreparedStatement? {
        guard let statement = entries[sql], !statement.inUse else { return nil }
        tick &+= 1
        statement.lastUsed = tick
        statement.inUse = true
        hits += 1
        return statement
    }

    /// Records a fresh prepare; caches it unless `sql` is already cached (then it stays temporary).
    /// Returns whether the statement is now owned by the cache.
    mutating func adopt(_ statement: PreparedStatement) -> Bool {
        prepares += 1
        tick &+= 1
        statement.lastUsed = tick
        statement.inUse = true
        guard entries[statement.sql] == nil else { return false }
        if entries.count >= capacity { evictLeastRecentlyUsed() }
        entries[statement.sql] = statement
        return true
    }

    /// Finalizes every idle cached statement and forgets all entries.
    mutating func removeAll() {
        for statement in entries.values { statement.finalize() }
        entries.removeAll()
    }

    private mutating func evictLeastRecentlyUsed() {
        var victim: PreparedStatement?
        for statement in entries.values where !statement.inUse {
            if victim.map({ statement.lastUsed < $0.lastUsed }) ?? true { victim = statement }
        }
        guard let victim else { return }
        entries[victim.sql] = nil
        victim.finalize()
    }
}
