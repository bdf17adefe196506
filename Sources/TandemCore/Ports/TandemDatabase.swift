/// Everything `tandem serve` and the administration commands need from a store, whichever backend serves it
/// (the embedded SQLite `Store`, or `PGStore` on PostgreSQL): every port, plus the store's own lifecycle and
/// the administration writes no API port carries.
///
/// The composition root holds one `any TandemDatabase` and hands it to each service as the port that service
/// needs; nothing outside the store modules knows which backend it is.
public protocol TandemDatabase: SenderDirectory, MessageLedger, PushAddressRegistry, IdempotencyKeys, DeviceRegistry,
    AppRegistry, PushCredentialsSource, BWMIRegistry, CospaceRegistry, MyMSPDirectory, SCGTokenStore, SCGMessageStore,
    AppSenderIDStore, RecipientSpoolStore, PrefixBlockStore, MessageSearch {
    /// What the logs and `/healthz` call this backend and its database (`sqlite` + a path; `postgresql` + the
    /// URL without its password).
    var backend: DatabaseBackendName { get }
    /// The scheduler's store of messages, deliveries and their events.
    var deliveries: any DeliveryStore { get }
    /// The status-report outbox.
    var outbox: any OutboxStore { get }
    /// The group-commit writer's counters.
    var writerStatistics: WriterStatistics { get }
    /// Whether the database answered a trivial read just now (SQLite) or at its last heartbeat, at most a
    /// second or two ago (a server database, whose round trip `/healthz` must not wait for).
    func isReachable() -> Bool
    /// The schema version the database is at.
    func schemaVersion() async throws -> Int
    /// Lets queued writes commit, then closes every connection. Idempotent.
    func close() async

    /// Disables or re-enables an account: a disabled account's product token is refused everywhere.
    func setDisabled(account: ProductToken, _ disabled: Bool) async throws -> Bool
    /// Gives an account a new product token; the old one stops working at once.
    func replaceProductToken(_ account: ProductToken, with newToken: ProductToken) async throws -> Bool
    /// Sets or clears where an account's status reports are posted.
    func setWebhook(account: ProductToken, url: String?, format: WebhookFormat) async throws -> Bool
    /// Deletes an app no message names, with everything registered under it.
    func deleteApp(key: AppKey) async throws -> AppDeletion
    /// Recipients waiting in the per-recipient spools.
    func queuedSpoolRecipients() async throws -> Int
    /// Status reports not yet delivered.
    func outboxBacklog() async throws -> Int
    /// Forgets idempotency keys claimed before `cutoff`; the number forgotten.
    func purgeIdempotencyKeys(createdBefore cutoff: Timestamp) async throws -> Int
    /// The myMSP recipients of an app's myMSP user.
    func mymspRecipients(app: AppKey) async throws -> [MyMSPRecipient]
}

/// Which backend a ``TandemDatabase`` is, and where its database lives.
public struct DatabaseBackendName: Sendable, Hashable {
    /// `sqlite` or `postgresql`.
    public let kind: String
    /// The SQLite file's path, or the PostgreSQL URL with its password left out.
    public let location: String

    public init(kind: String, location: String) {
        self.kind = kind
        self.location = location
    }
}

/// What ``TandemDatabase/deleteApp(key:)`` did.
public enum AppDeletion: Sendable, Hashable {
    /// The app is gone, with its device registrations, its cospace users, its myMSP user and its SMS prefix blocks.
    case deleted(registrations: Int)
    /// Nothing changed: messages name the app, and their history (status lookups, reports, timelines)
    /// keeps it.
    case inUse(messages: Int)
    /// No app has the key.
    case notFound
}
