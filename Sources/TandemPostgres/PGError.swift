/// What went wrong talking to PostgreSQL, with the server's own words where it gave them.
public enum PGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection could not be made or was lost (libpq's message: host, port, authentication…).
    case connection(String)
    /// The server refused a statement: its SQLSTATE (e.g. `23505` unique violation, `40001` serialization
    /// failure), message and detail.
    case server(sqlState: String, message: String, detail: String?)
    /// libpq failed without a server error (out of memory, a result of an unexpected kind).
    case client(String)
    /// The writer did not apply the write, and says why (an earlier commit of its chain failed; the writer is
    /// closed).
    case notApplied(String)

    /// SQLSTATE class 23: a constraint (unique, foreign key, check, not null) refused the write.
    public var isConstraintViolation: Bool {
        if case .server(let state, _, _) = self { state.hasPrefix("23") } else { false }
    }

    /// SQLSTATE 40001 (serialization failure) or 40P01 (deadlock detected): the transaction lost a race with
    /// another one, not a fault of its statements — running it again may succeed.
    public var isTransient: Bool {
        if case .server(let state, _, _) = self { state == "40001" || state == "40P01" } else { false }
    }

    public var description: String {
        switch self {
        case .connection(let message): "PostgreSQL connection: \(message)"
        case .server(let state, let message, let detail):
            "PostgreSQL \(state): \(message)" + (detail.map { " (\($0))" } ?? "")
        case .client(let message): "libpq: \(message)"
        case .notApplied(let reason): "not written: \(reason)"
        }
    }
}
