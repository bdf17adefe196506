extension Connection {
    /// Checks a statement out of the cache (or prepares one), binds, runs `body`, then resets,
    /// clears bindings and returns it to the cache — or finalizes it if it was a temporary one.
    func withStatement<R>(
        _ sql: String, _ bindings: [SQLValue], _ body: (PreparedStatement) throws(StoreError) -> R
    ) throws(StoreError) -> R {
        let statement: PreparedStatement
        let cached: Bool
        if let hit = cache.checkOut(sql) {
            statement = hit
            cached = true
        } else {
            statement = try prepare(sql)
            cached = cache.adopt(statement)
        }
        defer {
            statement.resetAndClear()
            statement.inUse = false
            if !cached { statement.finalize() }
        }
        try statement.bind(bindings)
        return try body(statement)
    }
}
