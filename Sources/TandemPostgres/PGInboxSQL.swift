import TandemCore
import TandemStoreSupport

/// Translates an ``ODataQuery`` into a PostgreSQL `SELECT` that selects the same messages in the same order as
/// ``ODataQuery/apply(to:)`` (the reference semantics) — PostgreSQL's spelling of SQLite's `ODataSQL`, sharing
/// its shape (``ODataSQLShape``: the parenthesised condition, the operators, the ordering).
///
/// Differences from the SQLite dialect: numbered placeholders (`$n`, after the caller's own parameters); text
/// compared and ordered `COLLATE "C"` (byte order of UTF-8, as the evaluator compares — whatever the database's
/// collation); no `$top` is `LIMIT NULL` (no limit). User input only ever travels as a parameter.
/// Not guaranteed: use of an index for every filter (`NOT`, `<>` and `OR` usually scan the install's messages).
enum PGInboxSQL {
    /// The SQL expressions per field (trusted code, never user input); NOT NULL, holding what ``InboxMessage``
    /// holds: `id` the GUID's lower-case text, `updateID` a bigint, `sender` text, `dateTime` unix milliseconds,
    /// `status` the ``AppMessageStatus`` wire name.
    struct Columns: Sendable {
        var id: String
        var updateID: String
        var sender: String
        var dateTime: String
        var status: String
    }

    /// `SELECT resultColumns FROM source [WHERE (condition) AND (filter)] ORDER BY … LIMIT $n OFFSET $n+1`, and
    /// the parameters after the `first - 1` the caller's `condition` and `source` use.
    static func statement(_ query: ODataQuery, columns: Columns, selecting resultColumns: String, from source: String,
                          where ownCondition: String? = nil, firstParameter first: Int) -> (sql: String, parameters: [String?]) {
        var parameters: [String?] = []
        func placeholder(_ value: String) -> String {
            parameters.append(value)
            return "$\(first + parameters.count - 1)"
        }
        func comparison(_ comparison: ODataComparison) -> String {
            switch comparison {
            case .id(let op, let guid): "\(columns.id) \(ODataSQLShape.sqlOperator(op)) \(placeholder(guid.text)) COLLATE \"C\""
            case .updateID(let op, let value):
                "\(columns.updateID) \(ODataSQLShape.sqlOperator(op)) \(placeholder(String(value)))::bigint"
            case .sender(let op, let text): "\(columns.sender) \(ODataSQLShape.sqlOperator(op)) \(placeholder(text)) COLLATE \"C\""
            case .dateTime(let op, let timestamp):
                "\(columns.dateTime) \(ODataSQLShape.sqlOperator(op)) \(placeholder(String(timestamp.milliseconds)))::bigint"
            case .status(let op, let status):
                "\(columns.status) \(ODataSQLShape.sqlOperator(op.general)) \(placeholder(status.wireName)) COLLATE \"C\""
            }
        }
        var sql = "SELECT \(resultColumns) FROM \(source)"
        let filter = query.filter.map { ODataSQLShape.condition($0, comparison: comparison) }
        let conditions = [ownCondition, filter].compactMap { $0 }
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        }
        let orderBy = ODataSQLShape.orderBy(query.effectiveOrder) { field in
            switch field {
            case .id: "\(columns.id) COLLATE \"C\""
            case .updateID: columns.updateID
            case .sender: "\(columns.sender) COLLATE \"C\""
            case .dateTime: columns.dateTime
            }
        }
        sql += " ORDER BY \(orderBy)"
        let limit = "$\(first + parameters.count)::bigint", offset = "$\(first + parameters.count + 1)::bigint"
        parameters.append(query.top.map { String($0) })
        parameters.append(String(query.skip))
        sql += " LIMIT \(limit) OFFSET \(offset)"
        return (sql, parameters)
    }
}
