import TandemCore

/// What every SQL dialect's translation of an ``ODataQuery`` shares (package access): the shape of the `WHERE`
/// condition — fully parenthesised `AND`, `OR` and `NOT` over the comparisons — the operators' spelling, and the
/// `ORDER BY` list of ``ODataQuery/effectiveOrder``. Each backend supplies what its dialect spells its own way:
/// a comparison (placeholders, collation, casts) and a sort key's expression (SQLite's `ODataSQL`,
/// PostgreSQL's `PGInboxSQL`).
package enum ODataSQLShape {
    /// `expression` as a condition; `comparison` writes each comparison (in order, left to right, so that
    /// placeholders numbered as they are written come out in order).
    package static func condition(_ expression: ODataExpression, comparison: (ODataComparison) -> String) -> String {
        switch expression {
        case .comparison(let value):
            return comparison(value)
        case .and(let left, let right):
            let lhs = condition(left, comparison: comparison)
            return "(\(lhs) AND \(condition(right, comparison: comparison)))"
        case .or(let left, let right):
            let lhs = condition(left, comparison: comparison)
            return "(\(lhs) OR \(condition(right, comparison: comparison)))"
        case .not(let operand):
            return "(NOT \(condition(operand, comparison: comparison)))"
        }
    }

    /// The `ORDER BY` list (without the keywords): each sort key's expression and its direction.
    package static func orderBy(_ order: [ODataOrder], expression: (ODataSortField) -> String) -> String {
        order.map { key in
            let direction = switch key.direction {
            case .ascending: "ASC"
            case .descending: "DESC"
            }
            return "\(expression(key.field)) \(direction)"
        }.joined(separator: ", ")
    }

    package static func sqlOperator(_ op: ODataOperator) -> String {
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
