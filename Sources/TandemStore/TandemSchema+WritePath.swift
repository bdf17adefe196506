/// Migration 5: fewer index updates per delivery write, found by profiling the gateway's accept path.
extension TandemSchema {
    /// - `deliveries_msisdn` indexed every delivery by number; the only query by number is the app inbox,
    ///   which asks for pushed deliveries only (`msisdn = ? AND pushed = 1`). It becomes a partial index on
    ///   pushed deliveries, `deliveries_inbox`: an SMS-only delivery — every bulk SMS — no longer inserts
    ///   into a tree ordered by phone number, which touched a random page per recipient.
    /// - The pending-deadline indexes of migration 1 (`deliveries_pending_push`, `_read`, `_expiry`) were
    ///   never queried: recovery reloads in-flight deliveries through `deliveries_in_flight` and rebuilds
    ///   the timers from their snapshots. Dropped, with their upkeep on every timer change.
    public static let writePath = Migration(version: 5, name: "write path: inbox index on pushed deliveries only", sql: """
        DROP INDEX deliveries_msisdn;
        CREATE INDEX deliveries_inbox ON deliveries(msisdn) WHERE pushed = 1;
        DROP INDEX deliveries_pending_push;
        DROP INDEX deliveries_pending_read;
        DROP INDEX deliveries_pending_expiry;
        """)
}
