/// A store's tables, read row by row — what `tandem db copy` moves from one backend to another (package access).
package protocol TableExport {
    /// The store's tables, each with its columns in order.
    func tables() throws -> [(name: String, columns: [String])]
    /// Calls `body` with each row of `table` (values in the order of its columns), in primary-key order.
    func forEachRow(of table: String, _ body: ([ExportedValue]) throws -> Void) throws
}

/// One stored value, as the source holds it.
package enum ExportedValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
