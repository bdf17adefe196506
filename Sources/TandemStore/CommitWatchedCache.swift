import Synchronization

/// Values read from the database, kept only while nothing was committed since they were read — by this process
/// or by another one. Unlike ``RegistrationCache``, for rows that other processes write too (`tandem app bwmi` and
/// `tandem app delete` open the database themselves): every lookup first asks SQLite's `PRAGMA data_version` on a
/// read-only connection of the cache's own, whose value changes whenever any other connection — this process's
/// writer or another process's — committed since the last ask; a change empties the cache.
///
/// The check costs a read transaction's start and no row read. Under a write load each commit empties the cache,
/// so it helps as much as requests outnumber commits (the writer's group commits: many requests per commit). A
/// reader that missed caches what it read only if the version it saw before its read is still the current one, so
/// a value read before a commit is never kept after it.
///
/// Bounded: at `capacity`, an arbitrary entry makes room. Absent values are not cached (unknown keys cannot fill it).
/// Not guaranteed: anything once ``close()`` was called (every lookup then reads).
final class CommitWatchedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var watch: ConnectionHandle?
        /// `PRAGMA data_version` when `entries` were read; nil before the first check.
        var version: Int64?
        var entries: [Key: Value] = [:]
    }

    let capacity: Int
    private let state: Mutex<State>

    /// `watch`: a connection used for nothing else (the version is per connection).
    init(watch: Connection, capacity: Int) {
        self.capacity = max(0, capacity)
        state = Mutex(State(watch: ConnectionHandle(watch)))
    }

    /// The cached value for `key` if nothing was committed since it was read, else what `load` reads (cached if
    /// nothing was committed meanwhile either).
    func value(_ key: Key, load: () throws(StoreError) -> Value?) throws(StoreError) -> Value? {
        let checked = try state.withLock { state throws(StoreError) -> (cached: Value?, version: Int64?) in
            guard let watch = state.watch else { return (nil, nil) }
            let version = try watch.connection.scalar("PRAGMA data_version", as: Int64.self)
            if version != state.version {
                state.entries.removeAll(keepingCapacity: true)
                state.version = version
            }
            return (state.entries[key], version)
        }
        if let cached = checked.cached { return cached }
        let loaded = try load()
        guard let loaded, let version = checked.version, capacity > 0 else { return loaded }
        state.withLock { state in
            guard state.version == version else { return }
            if state.entries.count >= capacity, state.entries[key] == nil { state.entries.remove(at: state.entries.startIndex) }
            state.entries[key] = loaded
        }
        return loaded
    }

    /// Closes the connection; later lookups read every time.
    func close() {
        let watch = state.withLock { state -> ConnectionHandle? in
            state.entries.removeAll()
            defer { state.watch = nil }
            return state.watch
        }
        watch?.connection.close()
    }
}
