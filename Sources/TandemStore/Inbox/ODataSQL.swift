import TandemCore

/// Translates an ``ODataQuery`` into SQL for SQLite that selects the same messages in the same order
/// as ``ODataQuery/apply(to:)``.
///
/// Text comparisons and orderings carry `COLLATE BINARY` (byte order, as the evaluator compares), so a
/// column declared `NOCASE` cannot change the result. Not guaranteed: use of an index for every filter
/// (`NOT`, `<>` and `OR` usually scan).
public enum ODataSQL {
    public static func translate(_ query: ODataQuery, columns: ODataSQLColumns) -> ODataSQLFragment {
        var bindings: [ODataSQLValue] = []
        let whereClause = query.filter.map { condition($0, columns: columns, bindings: &bindings) }
        let orderBy = query.effectiveOrder.map { key in
            let direction = switch key.direction {
            case .ascending: "ASC"
            case .descending: "DESC"
            }
            return "\(sortExpression(key.field, columns: columns)) \(direction)"
        }.joined(separator: ", ")
        return ODataSQLFragment(whereClause: whereClause, orderBy: orderBy, limit: query.top, offset: query.skip,
                                bindings: bindings)
    }

    private static func condition(_ expression: ODataExpression, columns: ODataSQLColumns,
                                  bindings: inout [ODataSQLValue]) -> String {
        switch expression {
        case .comparison(let comparison):
            return self.comparison(comparison, columns: columns, bindings: &bindings)
        case .and(let left, let right):
            let lhs = condition(left, columns: columns, bindings: &bindings)
            return "(\(lhs) AND \(condition(right, columns: columns, bindings: &bindings)))"
        case .or(let left, let right):
            let lhs = condition(left, columns: columns, bindings: &bindings)
            return "(\(lhs) OR \(condition(right, columns: columns, bindings: &bindings)))"
        case .not(let operand):
            return "(NOT \(condition(operand, columns: columns, bindings: &bindings)))"
        }
    }

    private static func comparison(_ comparison: ODataComparison, columns: ODataSQLColumns,
                                   bindings: inout [ODataSQLValue]) -> String {
        switch comparison {
        case .id(let op, let guid):
            bindings.append(.text(guid.text))
            return "\(columns.id) \(sqlOperator(op)) ? COLLATE BINARY"
        case .updateID(let op, let value):
            bindings.append(.integer(value))
            return "\(columns.updateID) \(sqlOperator(op)) ?"
        case .sender(let op, let text):
            bindings.append(.text(text))
            return "\(columns.sender) \(sqlOperator(op)) ? COLLATE BINARY"
        case .dateTime(let op, let timestamp):
            bindings.append(.integer(timestamp.milliseconds))
            return "\(columns.dateTime) \(sqlOperator(op)) ?"
        case .status(let op, let status):
            bindings.append(.text(status.wireName))
            return "\(columns.status) \(sqlOperator(op.general)) ? COLLATE BINARY"
        }
    }

    private static func sortExpression(_ field: ODataSortField, columns: ODataSQLColumns) -> String {
        switch field {
        case .id: "\(columns.id) COLLATE BINARY"
        case .updateID: columns.updateID
        case .sender: "\(columns.sender) COLLATE BINARY"
        case .dateTime: columns.dateTime
        }
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
