import TandemCore
import TandemHTTP

/// `GET /admin/status`: what a running server is doing, for `tandem status` and operators' scripts.
///
/// 200 `{"version","uptimeSeconds","providers","deliveriesInFlight","timersPending","spoolRecipientsQueued",
/// "smpp":{"binds","bindsUp"}|null}` — `providers` is the configuration's summary (`push=simulator sms=smpp
/// voice=simulator`), `smpp` is null unless SMS goes out over SMPP, and `spoolRecipientsQueued` is null when
/// the store could not count them. Behind the admin bearer token exactly as the other `/admin/` routes (401
/// without it, 403 while the admin API is off); `Cache-Control: no-store`.
/// Not guaranteed: a consistent cut — each figure is read on its own, a moment apart.
public struct AdminStatusEndpoint: Sendable {
    /// The figures one answer shows.
    public struct Snapshot: Sendable {
        public var version: String
        public var uptimeSeconds: Double
        public var providers: String
        public var deliveriesInFlight: Int
        public var timersPending: Int
        public var spoolRecipientsQueued: Int?
        /// Configured and currently bound SMPP binds; nil when SMS does not go out over SMPP.
        public var smpp: (binds: Int, bindsUp: Int)?

        public init(version: String = TandemVersion.current, uptimeSeconds: Double, providers: String,
                    deliveriesInFlight: Int, timersPending: Int, spoolRecipientsQueued: Int?,
                    smpp: (binds: Int, bindsUp: Int)?) {
            self.version = version
            self.uptimeSeconds = uptimeSeconds
            self.providers = providers
            self.deliveriesInFlight = deliveriesInFlight
            self.timersPending = timersPending
            self.spoolRecipientsQueued = spoolRecipientsQueued
            self.smpp = smpp
        }
    }

    private let admin: AdminAppsEndpoint
    private let snapshot: @Sendable () async -> Snapshot

    /// - Parameter admin: the admin API whose bearer token guards this route.
    public init(admin: AdminAppsEndpoint, snapshot: @escaping @Sendable () async -> Snapshot) {
        self.admin = admin
        self.snapshot = snapshot
    }

    public func register(in router: inout HTTPRouter) {
        router.add(.GET, "/admin/status", admin.asyncRoute { _ throws(AdminFailure) in
            AdminJSON.response(.ok, Self.document(await self.snapshot()))
        })
    }

    static func document(_ snapshot: Snapshot) -> JSONValue {
        let smpp: JSONValue = snapshot.smpp.map {
            AdminJSON.object(["binds": .number(String($0.binds)), "bindsUp": .number(String($0.bindsUp))])
        } ?? .null
        return AdminJSON.object([
            "version": .string(snapshot.version),
            "uptimeSeconds": .number(String((snapshot.uptimeSeconds * 1_000).rounded() / 1_000)),
            "providers": .string(snapshot.providers),
            "deliveriesInFlight": .number(String(snapshot.deliveriesInFlight)),
            "timersPending": .number(String(snapshot.timersPending)),
            "spoolRecipientsQueued": snapshot.spoolRecipientsQueued.map { .number(String($0)) } ?? .null,
            "smpp": smpp,
        ])
    }
}
