import TandemCore

/// The embedded SQLite store as a ``TandemDatabase``. ``deliveries`` and ``outbox`` make a new adapter on each
/// access (each holds the store; the store does not hold them): take each once.
extension Store: TandemDatabase {
    public var backend: DatabaseBackendName { DatabaseBackendName(kind: "sqlite", location: configuration.path) }

    public var deliveries: any DeliveryStore { SQLiteDeliveryStore(store: self) }

    public var outbox: any OutboxStore { SQLiteOutbox(store: self) }

    public func isReachable() -> Bool { ping() }
}
