import CSQLite

extension PreparedStatement {
    /// `sqlite3_finalize`; idempotent.
    func finalize() {
        guard let statement = handle else { return }
        sqlite3_finalize(statement)
        handle = nil
    }

    /// Binds `values` to parameters 1…n. The count must match the statement's parameter count.
    ///
    /// Text and blobs are copied into ``boundBytes`` and bound from there without SQLite copying them again;
    /// they stay valid until the next `bind` or `finalize`, and `resetAndClear()` drops SQLite's references
    /// after every use.
    func bind(_ values: [SQLValue]) throws(StoreError) {
        guard let statement = handle else { throw .closed }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == values.count else {
            throw .sqlite(code: .range, extendedCode: .range,
                          message: "statement expects \(expected) bindings, got \(values.count)", sql: sql)
        }
        reserveBoundBytes(for: values)
        // Never a null pointer, even for an empty value: SQLite would bind NULL.
        let base = boundBytes.baseAddress!
        var offset = 0
        for (position, value) in values.enumerated() {
            let index = Int32(position + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(statement, index)
            case .integer(let int):
                rc = sqlite3_bind_int64(statement, index, int)
            case .real(let double):
                rc = sqlite3_bind_double(statement, index, double)
            case .text(let string):
                var text = string
                let count = text.withUTF8 { utf8 in
                    UnsafeMutableRawBufferPointer(rebasing: boundBytes[offset...]).copyMemory(from: UnsafeRawBufferPointer(utf8))
                    return utf8.count
                }
                rc = tandem_sqlite3_bind_text_static(statement, index, (base + offset).assumingMemoryBound(to: CChar.self),
                                                     Int32(count))
                offset += count
            case .blob(let bytes):
                if bytes.isEmpty {
                    rc = sqlite3_bind_zeroblob(statement, index, 0)
                } else {
                    bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: boundBytes[offset...]).copyMemory(from: $0) }
                    rc = tandem_sqlite3_bind_blob_static(statement, index, base + offset, Int32(bytes.count))
                    offset += bytes.count
                }
            }
            guard rc == SQLITE_OK else { throw error(for: rc) }
        }
    }

    /// Makes ``boundBytes`` hold every text and blob of `values`. Only between uses: SQLite's references into
    /// the old buffer were cleared (`resetAndClear()`), or are all replaced before the next step.
    private func reserveBoundBytes(for values: [SQLValue]) {
        var needed = 0
        for value in values {
            switch value {
            case .text(let string): needed += string.utf8.count
            case .blob(let bytes): needed += bytes.count
            case .null, .integer, .real: break
            }
        }
        guard needed > boundBytes.count else { return }
        let grown = max(needed, 2 * boundBytes.count)
        boundBytes.deallocate()
        boundBytes = .allocate(byteCount: grown, alignment: 1)
    }

    /// `sqlite3_step`: `true` when a row is available, `false` at `SQLITE_DONE`.
    func step() throws(StoreError) -> Bool {
        guard let statement = handle else { throw .closed }
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw error(for: rc)
    }

    /// `sqlite3_reset` + `sqlite3_clear_bindings`, so the statement holds no read snapshot or lock
    /// and keeps no caller data. Errors are ignored here: `reset` only repeats the last step error.
    func resetAndClear() {
        guard let statement = handle else { return }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    /// The current row's values, copied into Swift values.
    func readRowValues() -> [SQLValue] {
        guard let statement = handle else { return [] }
        let count = sqlite3_column_count(statement)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(statement, column)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(statement, column)))
            case SQLITE_TEXT:
                let bytes = sqlite3_column_text(statement, column)
                let length = Int(sqlite3_column_bytes(statement, column))
                if let bytes, length > 0 {
                    values.append(.text(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let bytes = sqlite3_column_blob(statement, column)
                let length = Int(sqlite3_column_bytes(statement, column))
                if let bytes, length > 0 {
                    values.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: length))))
                } else {
                    values.append(.blob([]))
                }
            default:
                values.append(.null)
            }
        }
        return values
    }

    func readColumnNames() -> [String] {
        guard let statement = handle else { return [] }
        let count = sqlite3_column_count(statement)
        return (0..<count).map { column in
            sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "#\(column)"
        }
    }

    /// Maps a failing result code to a ``StoreError`` with the connection's current message.
    func error(for rc: Int32) -> StoreError {
        let message: String
        if let statement = handle, let db = sqlite3_db_handle(statement), let text = sqlite3_errmsg(db) {
            message = String(cString: text)
        } else {
            message = SQLiteResultCode.text(for: SQLiteResultCode(rawValue: rc))
        }
        return StoreError(resultCode: rc, message: message, sql: sql)
    }
}
