import CLibPQ
import Glibc

/// `COPY … FROM STDIN`: rows streamed to the server in COPY's text format, far faster than statements per row.
extension PGConnection {
    /// Runs `copy` (a `COPY table (columns) FROM STDIN` statement), then sends what `produce` writes — rows in COPY's
    /// text format, each ending in a newline (see ``PGCopyText``) — as it fills a buffer, and ends the copy.
    /// Returns the number of rows the server took. The rows are the server's only once the surrounding transaction
    /// commits.
    public func copyIn(_ copy: String, _ produce: (inout PGCopyText) throws -> Void) throws -> Int {
        guard let handle else { throw PGError.connection("the connection is closed") }
        guard let started = PQexec(handle, copy) else { throw PGError.client(Self.trimmed(PQerrorMessage(handle))) }
        let status = PQresultStatus(started)
        if status != PGRES_COPY_IN {
            defer { PQclear(started) }
            throw status == PGRES_FATAL_ERROR ? Self.failure(started, on: handle)
                                              : PGError.client("COPY did not start: \(String(cString: PQresStatus(status)))")
        }
        PQclear(started)
        var text = PGCopyText { bytes throws(PGError) in try self.send(bytes, on: handle) }
        var failure: (any Error)?
        do {
            try produce(&text)
            try text.flush()
        } catch {
            failure = error
        }
        // Ends the copy: with an error message when the rows could not be produced, so the server discards them.
        while true {
            let ended = failure.map { PQputCopyEnd(handle, "\($0)") } ?? PQputCopyEnd(handle, nil)
            if ended == 1 { break }
            if ended < 0 { throw PGError.connection(Self.trimmed(PQerrorMessage(handle))) }
            try waitWritable(handle)
        }
        while PQflush(handle) == 1 { try waitWritable(handle) }
        var rows = 0
        var serverError: PGError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK: rows = Int(String(cString: PQcmdTuples(result))) ?? 0
            case PGRES_FATAL_ERROR: serverError = serverError ?? Self.failure(result, on: handle)
            default: break
            }
        }
        if let failure { throw failure }
        if let serverError { throw serverError }
        return rows
    }

    private func send(_ bytes: [UInt8], on handle: OpaquePointer) throws(PGError) {
        while true {
            let sent = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
            }
            if sent == 1 { return }
            if sent < 0 { throw .connection(Self.trimmed(PQerrorMessage(handle))) }
            try waitWritable(handle)
        }
    }

    /// Waits until the socket takes more, flushing libpq's buffer (non-blocking mode).
    private func waitWritable(_ handle: OpaquePointer) throws(PGError) {
        guard PQflush(handle) != -1 else { throw .connection(Self.trimmed(PQerrorMessage(handle))) }
        var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLOUT | POLLIN), revents: 0)
        if poll(&socket, 1, 60_000) < 0, errno != EINTR { throw .connection("poll failed: \(String(cString: strerror(errno)))") }
        if socket.revents & Int16(POLLIN) != 0 { _ = PQconsumeInput(handle) }
    }
}

/// Rows in `COPY`'s text format: fields separated by tabs, rows ending in a newline, `\N` for NULL, backslash,
/// tab, newline and carriage return escaped. Sent in chunks as the buffer fills.
public struct PGCopyText {
    private var buffer: [UInt8] = []
    private let send: ([UInt8]) throws(PGError) -> Void
    private var fieldsInRow = 0
    static let chunk = 1 << 16

    init(send: @escaping ([UInt8]) throws(PGError) -> Void) {
        self.send = send
        buffer.reserveCapacity(Self.chunk + 4_096)
    }

    /// NULL.
    public mutating func null() {
        separate()
        buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
    }

    /// A value as its text (a number, a boolean's `t`/`f`, a string), escaped.
    public mutating func field(_ text: String) {
        separate()
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default: buffer.append(byte)
            }
        }
    }

    /// A `bytea` value, hex-encoded.
    public mutating func bytes(_ bytes: [UInt8]) {
        separate()
        let digits = Array("0123456789abcdef".utf8)
        buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
        for byte in bytes {
            buffer.append(digits[Int(byte >> 4)])
            buffer.append(digits[Int(byte & 0x0f)])
        }
    }

    /// Ends the row; sends the buffer once it holds a chunk.
    public mutating func endRow() throws(PGError) {
        buffer.append(UInt8(ascii: "\n"))
        fieldsInRow = 0
        if buffer.count >= Self.chunk { try flush() }
    }

    mutating func flush() throws(PGError) {
        guard !buffer.isEmpty else { return }
        try send(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func separate() {
        if fieldsInRow > 0 { buffer.append(UInt8(ascii: "\t")) }
        fieldsInRow += 1
    }
}
