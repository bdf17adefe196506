import CLibPQ
import Glibc

/// One statement of a pipeline: SQL with `$1…` placeholders (one statement, no `;`-separated list) and its
/// parameters in text form (nil: NULL). Cast a parameter whose type the server cannot infer (`$1::bigint`).
public struct PGStatement: Sendable, Hashable {
    public var sql: String
    public var parameters: [String?]

    public init(_ sql: String, _ parameters: [String?] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}

/// What one statement of a pipeline came to.
public enum PGOutcome: Sendable, Hashable {
    case done(PGResult)
    /// The server refused it (its SQLSTATE and words, see ``PGError/server(sqlState:message:detail:)``).
    case failed(PGError)
    /// Not run: a statement before it in the pipeline failed, and the server skipped the rest up to the Sync.
    case skipped
}

/// libpq's pipeline mode: many statements sent at once, one round trip for all of them.
extension PGConnection {
    /// Runs `statements` in order as one pipeline ending in one Sync, and returns one outcome per statement.
    ///
    /// Each query or data-modifying statement runs as a prepared statement: prepared on this connection the first
    /// time its SQL is seen (the Parse travels in the same pipeline) and reused afterwards, so it is planned once
    /// per connection, not per call (`BEGIN`, `COMMIT`, and statements past ``preparedLimit`` run unprepared). After the first statement that fails, the server skips every later one up to
    /// the Sync (``PGOutcome/skipped``). Outside an explicit transaction the statements up to the Sync form one
    /// implicit transaction, so a failure undoes the statements before it too; inside one (`BEGIN` among the
    /// statements) the transaction is then failed, and only `ROLLBACK` (or `ROLLBACK TO SAVEPOINT`) is accepted.
    ///
    /// Sending and reading interleave on the non-blocking socket, so a pipeline larger than the socket's
    /// buffers cannot dead-lock with the server writing its results.
    ///
    /// Throws only when the connection failed or `deadline` passed (the connection is then closed): nothing is
    /// known of what the server did with the statements — in particular whether a `COMMIT` among them took
    /// effect. The connection is not usable afterwards (``isUsable``).
    public func pipeline(_ statements: [PGStatement], deadline: Duration = .seconds(60)) throws(PGError) -> [PGOutcome] {
        guard let handle else { throw .connection("the connection is closed") }
        let expiry = ContinuousClock.now.advanced(by: deadline)
        do throws(PGError) {
            return try runPipeline(statements, on: handle, until: expiry)
        } catch {
            close()
            throw error
        }
    }

    private enum Command {
        case prepare(sql: String)
        case execute(index: Int)
    }

    private func runPipeline(_ statements: [PGStatement], on handle: OpaquePointer,
                             until expiry: ContinuousClock.Instant) throws(PGError) -> [PGOutcome] {
        guard PQenterPipelineMode(handle) == 1 else { throw lost(handle) }
        var commands: [Command] = []
        commands.reserveCapacity(statements.count)
        for index in statements.indices {
            let statement = statements[index]
            let sent: Int32
            if let (name, isNew) = preparedName(for: statement.sql) {
                if isNew {
                    guard PQsendPrepare(handle, name, statement.sql, Int32(statement.parameters.count), nil) == 1 else {
                        throw lost(handle)
                    }
                    commands.append(.prepare(sql: statement.sql))
                }
                sent = Self.withCStrings(statement.parameters) { values in
                    PQsendQueryPrepared(handle, name, Int32(statement.parameters.count), values, nil, nil, 0)
                }
            } else {
                sent = Self.withCStrings(statement.parameters) { values in
                    PQsendQueryParams(handle, statement.sql, Int32(statement.parameters.count), nil, values, nil, nil, 0)
                }
            }
            guard sent == 1 else { throw lost(handle) }
            commands.append(.execute(index: index))
        }
        guard PQpipelineSync(handle) == 1 else { throw lost(handle) }

        var outcomes = [PGOutcome](repeating: .skipped, count: statements.count)
        var failedPreparation: PGOutcome?
        for command in commands {
            guard let result = try nextResult(handle, until: expiry) else {
                throw .client("the pipeline ended before every statement had its result")
            }
            let status = PQresultStatus(result)
            let outcome: PGOutcome = switch status {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK: .done(PGResult(result))
            case PGRES_PIPELINE_ABORTED: .skipped
            case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR: .failed(Self.failure(result, on: handle))
            default: .failed(.client("unexpected result status \(String(cString: PQresStatus(status)))"))
            }
            PQclear(result)
            if case .failed(.connection(let message)) = outcome { throw .connection(message) }
            // Each command's results end with a NULL.
            if let extra = try nextResult(handle, until: expiry) {
                PQclear(extra)
                throw .client("a statement of the pipeline returned more than one result")
            }
            switch command {
            case .prepare(let sql):
                if case .done = outcome {} else {
                    forgetPrepared(sql)
                    failedPreparation = outcome
                }
            case .execute(let index):
                // A statement that could not be prepared is skipped: its outcome is the preparation's.
                outcomes[index] = outcome == .skipped ? failedPreparation ?? outcome : outcome
                failedPreparation = nil
            }
        }
        guard let sync = try nextResult(handle, until: expiry) else { throw .client("the pipeline's Sync has no result") }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC else {
            throw .client("expected the pipeline's Sync, got \(String(cString: PQresStatus(syncStatus)))")
        }
        guard PQexitPipelineMode(handle) == 1 else { throw lost(handle) }
        return outcomes
    }

    /// The next result (nil: the end of one command's results), waiting on the socket — and flushing what is
    /// still unsent — while libpq has none ready.
    private func nextResult(_ handle: OpaquePointer, until expiry: ContinuousClock.Instant) throws(PGError) -> OpaquePointer? {
        while true {
            let unsent = PQflush(handle)
            guard unsent >= 0 else { throw lost(handle) }
            if PQisBusy(handle) == 0 { return PQgetResult(handle) }
            let remaining = ContinuousClock.now.duration(to: expiry)
            guard remaining > .zero else { throw .connection("no answer from the server within the deadline") }
            let milliseconds = Int32(min(remaining.components.seconds * 1_000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLIN) | (unsent == 1 ? Int16(POLLOUT) : 0), revents: 0)
            guard socket.fd >= 0 else { throw lost(handle) }
            let ready = poll(&socket, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .connection("poll failed: \(String(cString: strerror(errno)))")
            }
            if socket.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                guard PQconsumeInput(handle) == 1 else { throw lost(handle) }
            }
        }
    }

    private func lost(_ handle: OpaquePointer) -> PGError {
        let message = Self.trimmed(PQerrorMessage(handle))
        return .connection(message.isEmpty ? "the connection failed" : message)
    }
}
