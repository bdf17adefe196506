import Synchronization
import TandemCore

/// BWMI app settings (`bwmi_apps`) as last committed, by app key, so that every BWMI request (each checks its
/// app's static key) and every push rendered for a phone-trusting app does not read the database for them.
///
/// Correct because every write to `bwmi_apps` is made by this process through ``Store/setBWMISettings(app:_:)``,
/// which invalidates once it has committed (or failed); an app key never changes its app, and apps are never
/// deleted. A reader that missed caches what it read only if no invalidation happened since before its read
/// began (a generation counter, as ``RegistrationCache``), so settings read before a commit are never cached
/// after that commit's invalidation. Only keys of existing apps are cached (unknown keys cannot fill it).
///
/// Bounded: at `capacity`, an arbitrary entry makes room. Not guaranteed: coherence with rows written by another
/// process (no part of Tandem does; an operator's hand edit needs a restart).
final class BWMISettingsCache: Sendable {
    private struct State {
        var entries: [AppKey: BWMIAppSettings] = [:]
        var generation: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cached settings, or what `load` reads (nil: the app does not exist; not cached).
    func settings(_ app: AppKey, load: (AppKey) throws(StoreError) -> BWMIAppSettings?) throws(StoreError) -> BWMIAppSettings? {
        let generation: UInt64
        do {
            let (cached, current) = state.withLock { ($0.entries[app], $0.generation) }
            if let cached { return cached }
            generation = current
        }
        guard let loaded = try load(app) else { return nil }
        guard capacity > 0 else { return loaded }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity, state.entries[app] == nil {
                state.entries.remove(at: state.entries.startIndex)
            }
            state.entries[app] = loaded
        }
        return loaded
    }

    /// Forgets `app`'s settings, after a commit that changed them.
    func invalidate(_ app: AppKey) {
        state.withLock { state in
            state.generation &+= 1
            state.entries[app] = nil
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
