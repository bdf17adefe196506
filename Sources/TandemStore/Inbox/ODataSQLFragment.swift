import TandemCore

/// The pieces of a `SELECT` that carry an ``ODataQuery``, for the store to combine with its own
/// conditions. `whereClause` uses `?` placeholders only, bound by `bindings` in order; no user input is
/// ever part of the SQL text. `limit` and `offset` are to be bound too (``statement(selecting:from:where:bindings:)``
/// does so).
public struct ODataSQLFragment: Sendable, Hashable {
    /// The `$filter` as a condition (without `WHERE`), fully parenthesised; nil without `$filter`.
    public var whereClause: String?
    /// The ``ODataQuery/effectiveOrder`` (without `ORDER BY`): `t.date_time DESC, t.id COLLATE BINARY ASC`.
    public var orderBy: String
    public var limit: Int?
    public var offset: Int
    /// The values for the placeholders of `whereClause`, in order.
    public var bindings: [ODataSQLValue]

    /// A complete statement: `SELECT resultColumns FROM source [WHERE (condition) AND (filter)]
    /// ORDER BY … LIMIT ? OFFSET ?`. `condition` is the caller's own (trusted) condition, with its
    /// `conditionBindings`; the returned bindings are those, then the filter's, then limit and offset
    /// (`-1`, SQLite's "no limit", when there is no `$top`).
    public func statement(selecting resultColumns: String, from source: String, where condition: String? = nil,
                          bindings conditionBindings: [ODataSQLValue] = []) -> (sql: String, bindings: [ODataSQLValue]) {
        var sql = "SELECT \(resultColumns) FROM \(source)"
        let conditions = [condition, whereClause].compactMap { $0 }
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        }
        sql += " ORDER BY \(orderBy) LIMIT ? OFFSET ?"
        let paging: [ODataSQLValue] = [.integer(Int64(limit ?? -1)), .integer(Int64(offset))]
        return (sql, conditionBindings + bindings + paging)
    }
}
