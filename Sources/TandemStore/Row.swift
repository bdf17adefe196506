/// One result row: the column names of its statement and the values, copied out of SQLite.
///
/// A `Row` is a value that stays valid after the statement moves on or is finalized.
/// Typed accessors are strict (see ``SQLValueConvertible``) and throw ``StoreError/decoding(column:message:)``
/// on a type mismatch, an unexpected NULL, or an unknown column.
/// Not guaranteed: column-name lookup is exact first, then ASCII case-insensitive; with duplicate
/// names (e.g. `SELECT a.id, b.id`) the first match wins — alias such columns.
public struct Row: Sendable, Hashable {
    /// Column names in result order (shared between the rows of one statement).
    public let columnNames: [String]
    /// Values in result order.
    public let values: [SQLValue]

    public init(columnNames: [String], values: [SQLValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    public var count: Int { values.count }

    /// The raw value at `index`; traps when out of range, like an array.
    public subscript(index: Int) -> SQLValue { values[index] }

    /// The raw value of the named column, or `nil` when there is no such column.
    public subscript(name: String) -> SQLValue? {
        guard let index = columnIndex(named: name) else { return nil }
        return values[index]
    }

    /// The index of the named column (exact match first, then ASCII case-insensitive).
    public func columnIndex(named name: String) -> Int? {
        if let index = columnNames.firstIndex(of: name) { return index }
        let lowered = name.lowercased()
        return columnNames.firstIndex { $0.lowercased() == lowered }
    }

    /// The value at `index` as `T`; use an optional `T` for nullable columns.
    ///
    ///     let id: Int64 = try row.get(0)
    ///     let msisdn = try row.get("msisdn", as: String?.self)
    public func get<T: SQLValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(StoreError) -> T {
        guard values.indices.contains(index) else {
            throw .decoding(column: "#\(index)", message: "no column at index \(index) (row has \(values.count))")
        }
        return try convert(values[index], column: columnNames.indices.contains(index) ? columnNames[index] : "#\(index)")
    }

    /// The value of the named column as `T`; use an optional `T` for nullable columns.
    public func get<T: SQLValueConvertible>(_ name: String, as type: T.Type = T.self) throws(StoreError) -> T {
        guard let index = columnIndex(named: name) else {
            throw .decoding(column: name, message: "no such column (have: \(columnNames.joined(separator: ", ")))")
        }
        return try convert(values[index], column: name)
    }

    private func convert<T: SQLValueConvertible>(_ value: SQLValue, column: String) throws(StoreError) -> T {
        guard let converted = T(sqlValue: value) else {
            throw .decoding(column: column, message: "cannot read \(value.kindName) as \(T.self)")
        }
        return converted
    }
}

extension SQLValue {
    /// SQLite's storage-class name, for error messages.
    var kindName: String {
        switch self {
        case .null: return "NULL"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}
