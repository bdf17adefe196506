/// Carries a ``Connection`` across threads (internal).
///
/// `@unchecked Sendable` invariant: at any moment exactly one thread uses `connection`.
/// Ownership moves only (a) into the writer thread at thread start, or (b) in and out of the
/// reader pool under the pool's lock — both establish happens-before between the users.
final class ConnectionHandle: @unchecked Sendable {
    let connection: Connection

    init(_ connection: Connection) {
        self.connection = connection
    }
}
