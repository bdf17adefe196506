import Synchronization
import TandemCore

/// Device registrations as last committed, by DeviceID, so that the device API's requests — every one
/// names its install — do not read the database for them (a read after each commit starts on a cold page
/// cache in WAL mode: several page reads and two lock calls per request). Beside them, in the same way: BWMI
/// devices by token, the intake's routing registrations (``Store/registration(app:device:)``) and myMSP's
/// active recipients by user and id (a myMSP `send` then reads no recipient or registration row).
///
/// Correct because every write to `registrations` and `mymsp_recipients` is made by this process through
/// ``Store`` (or ``SQLiteDeliveryStore``'s dead-token invalidation, which shares this cache), and each
/// invalidates what it changed once it has committed (``invalidate(_:)``, ``invalidateAll()``). A reader
/// that missed caches what it read only if no invalidation happened since before its read began (a
/// generation counter, checked and updated under one lock), so a value read before a commit is never cached
/// after that commit's invalidation. Unknown DeviceIDs are not cached (random ones cannot fill the cache).
/// Between a commit and its invalidation (microseconds, on the committing thread) a concurrent request may
/// still see the registration as it was, as it would had it read a moment earlier.
///
/// Bounded: at `capacity`, an arbitrary entry makes room. Not guaranteed: coherence with rows written by
/// another process (no part of Tandem does; an operator's hand edit needs a restart).
final class RegistrationCache: Sendable {
    private struct State {
        var entries: [DeviceID: DeviceRegistration] = [:]
        /// BWMI devices by app and push token (``Store/bwmiDevice(app:token:)``), and the key of each by DeviceID
        /// so that invalidating a device forgets it under its token too.
        var bwmi: [BWMITokenKey: BWMIDevice] = [:]
        var bwmiKeys: [DeviceID: BWMITokenKey] = [:]
        /// Registrations as the intake routes them (``Store/registration(app:device:)``).
        var routing: [DeviceID: Registration] = [:]
        /// Active myMSP recipients that can be pushed (``Store/mymspActiveRecipients(user:ids:groups:)``), by
        /// user and recipient id, and the key of each by DeviceID.
        var mymsp: [MyMSPKey: MyMSPRecipient] = [:]
        var mymspKeys: [DeviceID: MyMSPKey] = [:]
        var generation: UInt64 = 0
    }

    /// A myMSP recipient's lookup key: its user and its recipient id.
    struct MyMSPKey: Hashable, Sendable {
        let user: Int64
        let recipient: Int64
    }

    /// A BWMI device's lookup key: its app and its push token.
    struct BWMITokenKey: Hashable, Sendable {
        let app: AppKey
        let token: PushToken
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The cached registration, or what `load` reads (cached if nothing was invalidated meanwhile).
    func registration(_ device: DeviceID, load: (DeviceID) throws(StoreError) -> DeviceRegistration?) throws(StoreError) -> DeviceRegistration? {
        try cachedOrLoaded({ $0.entries[device] }, load: { () throws(StoreError) in try load(device) }) { state, loaded in
            if state.entries.count >= capacity, state.entries[device] == nil {
                state.entries.remove(at: state.entries.startIndex)
            }
            state.entries[device] = loaded
        }
    }

    /// What `cached` finds under the lock; else what `load` reads (outside the lock), kept by `keep` unless something
    /// was invalidated meanwhile (the generation moved on) or the cache holds nothing (capacity 0). Nil is not cached.
    private func cachedOrLoaded<Value: Sendable>(_ cached: (State) -> Value?, load: () throws(StoreError) -> Value?,
                                                 keep: (inout State, Value) -> Void) throws(StoreError) -> Value? {
        let generation: UInt64
        do {
            let (found, current) = state.withLock { (cached($0), $0.generation) }
            if let found { return found }
            generation = current
        }
        let read = try load()
        guard let loaded = read, capacity > 0 else { return read }
        state.withLock { state in
            guard state.generation == generation else { return }
            keep(&state, loaded)
        }
        return loaded
    }

    /// The cached BWMI device of `app` with `token`, or what `load` reads (cached, like a registration, if
    /// nothing was invalidated meanwhile; an unknown token is not cached). The same invalidations apply: the
    /// device's own (``invalidate(_:)``) or every one (``invalidateAll()``).
    func bwmiDevice(app: AppKey, token: PushToken, load: () throws(StoreError) -> BWMIDevice?) throws(StoreError) -> BWMIDevice? {
        let key = BWMITokenKey(app: app, token: token)
        return try cachedOrLoaded({ $0.bwmi[key] }, load: load) { state, loaded in
            if state.bwmi.count >= capacity, state.bwmi[key] == nil, let evicted = state.bwmi.first {
                state.bwmi[evicted.key] = nil
                state.bwmiKeys[evicted.value.deviceID] = nil
            }
            if let previous = state.bwmiKeys[loaded.deviceID], previous != key { state.bwmi[previous] = nil }
            state.bwmi[key] = loaded
            state.bwmiKeys[loaded.deviceID] = key
        }
    }

    /// The cached routing registration of `device`, or what `load` reads (cached, like a registration, if
    /// nothing was invalidated meanwhile; an unknown device is not cached). The same invalidations apply.
    func routingRegistration(_ device: DeviceID, load: () throws(StoreError) -> Registration?) throws(StoreError) -> Registration? {
        try cachedOrLoaded({ $0.routing[device] }, load: load) { state, loaded in
            if state.routing.count >= capacity, state.routing[device] == nil {
                state.routing.remove(at: state.routing.startIndex)
            }
            state.routing[device] = loaded
        }
    }

    /// The cached active myMSP recipients of `user` among `ids`, in their order, when every one is cached;
    /// nil (read them) when any is not — an inactive, unknown or unpushable one is never cached.
    func mymspRecipients(user: Int64, ids: [Int64]) -> (found: [MyMSPRecipient]?, generation: UInt64) {
        state.withLock { state in
            var found: [MyMSPRecipient] = []
            found.reserveCapacity(ids.count)
            for id in ids {
                guard let recipient = state.mymsp[MyMSPKey(user: user, recipient: id)] else { return (nil, state.generation) }
                found.append(recipient)
            }
            return (found, state.generation)
        }
    }

    /// Caches active recipients of `user` as read, unless something was invalidated since `generation`
    /// (taken before the read began).
    func cacheMyMSPRecipients(user: Int64, _ recipients: [MyMSPRecipient], readSince generation: UInt64) {
        guard capacity > 0, !recipients.isEmpty else { return }
        state.withLock { state in
            guard state.generation == generation else { return }
            for recipient in recipients where recipient.active {
                let key = MyMSPKey(user: user, recipient: recipient.id)
                if state.mymsp.count >= capacity, state.mymsp[key] == nil, let evicted = state.mymsp.first {
                    state.mymsp[evicted.key] = nil
                    state.mymspKeys[evicted.value.device] = nil
                }
                if let previous = state.mymspKeys[recipient.device], previous != key { state.mymsp[previous] = nil }
                state.mymsp[key] = recipient
                state.mymspKeys[recipient.device] = key
            }
        }
    }

    /// Forgets `devices`, after a commit that changed them.
    func invalidate(_ devices: some Sequence<DeviceID>) {
        state.withLock { state in
            state.generation &+= 1
            for device in devices {
                state.entries[device] = nil
                state.routing[device] = nil
                if let key = state.bwmiKeys.removeValue(forKey: device) { state.bwmi[key] = nil }
                if let key = state.mymspKeys.removeValue(forKey: device) { state.mymsp[key] = nil }
            }
        }
    }

    /// Forgets every registration, after a commit that changed rows it cannot name.
    func invalidateAll() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll()
            state.bwmi.removeAll()
            state.bwmiKeys.removeAll()
            state.routing.removeAll()
            state.mymsp.removeAll()
            state.mymspKeys.removeAll()
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
    var bwmiCount: Int { state.withLock { $0.bwmi.count } }
    var routingCount: Int { state.withLock { $0.routing.count } }
    var mymspCount: Int { state.withLock { $0.mymsp.count } }
}
