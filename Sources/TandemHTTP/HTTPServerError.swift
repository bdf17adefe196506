/// Why `HTTPServer.start()` failed. A closed set.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `host` is not an IPv4 or IPv6 address literal (host names are NOT resolved).
    case invalidHost(String)
    /// A configuration value is out of range; the text names it.
    case invalidConfiguration(String)
    /// `socket(2)` or `setsockopt(2)` failed with `errno`.
    case socketFailed(errno: Int32)
    /// `bind(2)` failed, e.g. `EADDRINUSE` (98) or `EACCES` (13).
    case bindFailed(host: String, port: UInt16, errno: Int32)
    /// `listen(2)` or `getsockname(2)` failed with `errno`.
    case listenFailed(errno: Int32)
    /// libmicrohttpd refused to start (it does not say why).
    case daemonStartFailed
    /// `start()` was already called, or the server was shut down; a server starts at most once.
    case alreadyStarted

    public var description: String {
        switch self {
        case .invalidHost(let host): "invalid host \(host) (need an IPv4 or IPv6 literal)"
        case .invalidConfiguration(let what): "invalid configuration: \(what)"
        case .socketFailed(let errno): "socket setup failed (errno \(errno))"
        case .bindFailed(let host, let port, 98): "cannot listen on \(host):\(port): address already in use (another process has it)"
        case .bindFailed(let host, let port, 13): "cannot listen on \(host):\(port): permission denied (ports below 1024 need privileges)"
        case .bindFailed(let host, let port, let errno): "bind to \(host):\(port) failed (errno \(errno))"
        case .listenFailed(let errno): "listen failed (errno \(errno))"
        case .daemonStartFailed: "libmicrohttpd daemon failed to start"
        case .alreadyStarted: "server already started or shut down"
        }
    }
}
