import TandemCore

/// Translates an ``ODataQuery`` into a PostgreSQL `SELECT` that selects the same messages in the same order as
/// ``ODataQuery/apply(to:)`` (the reference semantics) — PostgreSQL's spelling of SQLite's `ODataSQL`.
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
            case .id(let op, let guid): "\(columns.id) \(sqlOperator(op)) \(placeholder(guid.text)) COLLATE \"C\""
            case .updateID(let op, let value): "\(columns.updateID) \(sqlOperator(op)) \(placeholder(String(value)))::bigint"
            case .sender(let op, let text): "\(columns.sender) \(sqlOperator(op)) \(placeholder(text)) COLLATE \"C\""
            case .dateTime(let op, let timestamp):
                "\(columns.dateTime) \(sqlOperator(op)) \(placeholder(String(timestamp.milliseconds)))::bigint"
            case .status(let op, let status):
                "\(columns.status) \(sqlOperator(op.general)) \(placeholder(status.wireName)) COLLATE \"C\""
            }
        }
        func condition(_ expression: ODataExpression) -> String {
            switch expression {
            case .comparison(let value): return comparison(value)
            case .and(let left, let right):
                let lhs = condition(left)
                return "(\(lhs) AND \(condition(right)))"
            case .or(let left, let right):
                let lhs = condition(left)
                return "(\(lhs) OR \(condition(right)))"
            case .not(let operand): return "(NOT \(condition(operand)))"
            }
        }
        var sql = "SELECT \(resultColumns) FROM \(source)"
        let conditions = [ownCondition, query.filter.map { condition($0) }].compactMap { $0 }
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        }
        let orderBy = query.effectiveOrder.map { key in
            let expression = switch key.field {
            case .id: "\(columns.id) COLLATE \"C\""
            case .updateID: columns.updateID
            case .sender: "\(columns.sender) COLLATE \"C\""
            case .dateTime: columns.dateTime
            }
            let direction = switch key.direction {
            case .ascending: "ASC"
            case .descending: "DESC"
            }
            return "\(expression) \(direction)"
        }.joined(separator: ", ")
        sql += " ORDER BY \(orderBy)"
        let limit = "$\(first + parameters.count)::bigint", offset = "$\(first + parameters.count + 1)::bigint"
        parameters.append(query.top.map { String($0) })
        parameters.append(String(query.skip))
        sql += " LIMIT \(limit) OFFSET \(offset)"
        return (sql, parameters)
    }

    private static func sqlOperator(_ op: ODataOperator) -> String {
        switch op {
        case .eq: "="
        case .ne: "<>"
        case .gt: ">"
        case .ge: ">="
        case .lt: "<"
        case .le: "<="
        }
    }
}
