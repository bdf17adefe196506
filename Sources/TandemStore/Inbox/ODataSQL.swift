import TandemCore
import TandemStoreSupport

/// Translates an ``ODataQuery`` into SQL for SQLite that selects the same messages in the same order
/// as ``ODataQuery/apply(to:)``.
///
/// Text comparisons and orderings carry `COLLATE BINARY` (byte order, as the evaluator compares), so a
/// column declared `NOCASE` cannot change the result. The condition's shape and the ordering are shared with
/// PostgreSQL's translation (`ODataSQLShape`); the comparisons are SQLite's. Not guaranteed: use of an index for
/// every filter (`NOT`, `<>` and `OR` usually scan).
public enum ODataSQL {
    public static func translate(_ query: ODataQuery, columns: ODataSQLColumns) -> ODataSQLFragment {
        var bindings: [ODataSQLValue] = []
        let whereClause = query.filter.map { filter in
            ODataSQLShape.condition(filter) { comparison($0, columns: columns, bindings: &bindings) }
        }
        let orderBy = ODataSQLShape.orderBy(query.effectiveOrder) { sortExpression($0, columns: columns) }
        return ODataSQLFragment(whereClause: whereClause, orderBy: orderBy, limit: query.top, offset: query.skip,
                                bindings: bindings)
    }

    private static func comparison(_ comparison: ODataComparison, columns: ODataSQLColumns,
                                   bindings: inout [ODataSQLValue]) -> String {
        switch comparison {
        case .id(let op, let guid):
            bindings.append(.text(guid.text))
            return "\(columns.id) \(ODataSQLShape.sqlOperator(op)) ? COLLATE BINARY"
        case .updateID(let op, let value):
            bindings.append(.integer(value))
            return "\(columns.updateID) \(ODataSQLShape.sqlOperator(op)) ?"
        case .sender(let op, let text):
            bindings.append(.text(text))
            return "\(columns.sender) \(ODataSQLShape.sqlOperator(op)) ? COLLATE BINARY"
        case .dateTime(let op, let timestamp):
            bindings.append(.integer(timestamp.milliseconds))
            return "\(columns.dateTime) \(ODataSQLShape.sqlOperator(op)) ?"
        case .status(let op, let status):
            bindings.append(.text(status.wireName))
            return "\(columns.status) \(ODataSQLShape.sqlOperator(op.general)) ? COLLATE BINARY"
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
}
