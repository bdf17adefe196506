/// Overloads for bodies that throw `any Error` — chosen for unannotated closures
/// (`store.write { db in … }`), and for bodies that throw the caller's own domain errors.
///
/// Semantics are those of the typed overloads: a body error rolls back that body's savepoint
/// only and is rethrown unchanged; store failures arrive as ``StoreError``.
/// Not guaranteed: a closed set of errors — callers must handle both their own and ``StoreError``.
extension Store {
    @discardableResult
    public func write<T: Sendable>(
        _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await writer.submit(body, wrap: { $0 }).get()
    }

    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.read(body, closed: { StoreError.closed })
    }

    public func readSnapshot<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.read({ db throws -> T in
            try db.run("BEGIN DEFERRED")
            let result = try body(db)
            try db.run("COMMIT")
            return result
        }, closed: { StoreError.closed })
    }
}
