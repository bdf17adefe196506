import Foundation
import TandemStoreSupport

/// `tandem db copy`: moves a whole store — accounts, apps, registrations, messages, deliveries in flight with their
/// snapshots (hence their timers), events, outbox, every API's tables — into an empty PostgreSQL database, for an
/// operator who outgrew SQLite. Stop the server first; start it on PostgreSQL afterwards: it recovers the copied
/// deliveries as after a restart, and their fallbacks fire at their original deadlines.
///
/// One transaction: the target holds all of it or nothing. Rows keep their keys (delivery keys, recipient ids,
/// msgnos are what clients hold); each key sequence then continues after the largest copied key. Values are
/// converted by the target column's type (SQLite's 0/1 flags → `boolean`, blobs → `bytea`); the rows go through
/// `COPY`, not a statement per row. Triggers that would act on copied rows (a myMSP event queueing its push again:
/// the outbox is copied too) are off for the copy.
public enum PGDatabaseCopy {
    /// Every table, parents before children. A table the source has and this list does not is refused (a copy
    /// must not drop rows silently): a new migration adds its tables here.
    public static let tableOrder = [
        "accounts", "apps", "app_users", "registrations", "policies", "messages", "deliveries", "delivery_events", "outbox",
        "provider_refs", "idempotency_keys", "message_spools", "sms_prefix_blocks", "scg_tokens", "bwmi_apps", "bwmi_devices",
        "bwmi_notifications", "mymsp_users", "mymsp_recipients", "mymsp_groups", "mymsp_group_members", "mymsp_sequence",
        "mymsp_events",
    ]

    /// Rows copied, per table, in copy order.
    public struct Report: Sendable, Hashable {
        public var tables: [String: Int] = [:]
    }

    public enum Failure: Error, CustomStringConvertible {
        case targetNotEmpty(table: String)
        case unknownTable(String)
        case missingColumns(table: String, columns: [String])

        public var description: String {
            switch self {
            case .targetNotEmpty(let table):
                "the PostgreSQL database already holds data (table \(table) is not empty): copy into an empty database"
            case .unknownTable(let table):
                "the source has a table this build does not copy: \(table)"
            case .missingColumns(let table, let columns):
                "the PostgreSQL table \(table) has no column \(columns.joined(separator: ", ")): is its schema older than the source's?"
            }
        }
    }

    /// Copies everything `source` holds into the database of `target` (migrated to this build's schema first).
    package static func copy(from source: some TableExport, to target: PGConnection) throws -> Report {
        try PGSchema.migrate(target)
        let tables = try source.tables()
        for table in tables where !tableOrder.contains(table.name) { throw Failure.unknownTable(table.name) }
        let columnsByTable = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.columns) })
        try target.execute("BEGIN")
        do {
            for table in tableOrder {
                let nonEmpty = table == "mymsp_sequence" ? "SELECT EXISTS (SELECT 1 FROM mymsp_sequence WHERE last <> 0)"
                                                         : "SELECT EXISTS (SELECT 1 FROM \(table))"
                if try target.execute(nonEmpty).scalar == "t" { throw Failure.targetNotEmpty(table: table) }
            }
            let types = try columnTypes(target)
            try target.execute("DELETE FROM mymsp_sequence")  // the migration's seed row; the source's replaces it
            try target.execute("ALTER TABLE mymsp_events DISABLE TRIGGER mymsp_event_push")
            var report = Report()
            for table in tableOrder {
                guard let columns = columnsByTable[table] else { continue }
                let typeOf = types[table] ?? [:]
                let missing = columns.filter { typeOf[$0] == nil }
                guard missing.isEmpty else { throw Failure.missingColumns(table: table, columns: missing) }
                let kinds = columns.map { typeOf[$0] ?? "text" }
                let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
                report.tables[table] = try target.copyIn("COPY \(table) (\(list)) FROM STDIN") { text in
                    try source.forEachRow(of: table) { values in
                        for (value, kind) in zip(values, kinds) { append(value, as: kind, to: &text) }
                        try text.endRow()
                    }
                }
            }
            try target.execute("ALTER TABLE mymsp_events ENABLE TRIGGER mymsp_event_push")
            // Each key sequence continues after the largest copied key.
            for row in try target.execute("""
                SELECT table_name, column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND is_identity = 'YES'
                """).rows {
                guard let table = row[0], let column = row[1] else { continue }
                try target.execute("""
                    SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), max("\(column)")) FROM \(table) HAVING max("\(column)") IS NOT NULL
                    """)
            }
            try target.execute("COMMIT")
            return report
        } catch {
            _ = try? target.execute("ROLLBACK")
            throw error
        }
    }

    /// Table → column → PostgreSQL data type (`boolean`, `bytea`, `bigint`, `text`, `json`, …).
    private static func columnTypes(_ db: PGConnection) throws(PGError) -> [String: [String: String]] {
        var types: [String: [String: String]] = [:]
        for row in try db.execute("""
            SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()
            """).rows {
            guard let table = row[0], let column = row[1], let type = row[2] else { continue }
            types[table, default: [:]][column] = type
        }
        return types
    }

    private static func append(_ value: ExportedValue, as type: String, to text: inout PGCopyText) {
        switch (value, type) {
        case (.null, _): text.null()
        case (.integer(let number), "boolean"): text.field(number == 0 ? "f" : "t")
        case (.integer(let number), _): text.field(String(number))
        case (.real(let number), _): text.field(String(number))
        case (.text(let string), "bytea"): text.bytes(Array(string.utf8))
        case (.text(let string), _): text.field(string)
        case (.blob(let bytes), "bytea"): text.bytes(bytes)
        case (.blob(let bytes), _): text.field(String(decoding: bytes, as: UTF8.self))
        }
    }
}
