/// A bound, listening socket handed to `HTTPServer.start(on:)` later.
///
/// Binding first lets a process claim its address (and fail in words when it is taken) before it opens
/// its database or recovers; connections that arrive before the server starts wait in the listen backlog.
/// A listener is used by at most one server; one never used must be closed with `close()`.
public final class HTTPListener: Sendable {
    let socket: ListeningSocket.Bound
    public var port: UInt16 { socket.port }

    /// Binds `host:port` (port 0: an ephemeral port) and listens with `backlog`.
    public init(host: String, port: UInt16, backlog: Int = 1024) throws(HTTPServerError) {
        socket = try ListeningSocket.open(host: host, port: port, backlog: backlog)
    }

    /// Closes a listener that no server took.
    public func close() {
        ListeningSocket.close(socket.fd)
    }
}
