import CMicroHTTPD

/// A running libmicrohttpd daemon (`struct MHD_Daemon *`).
///
/// `@unchecked Sendable` invariant: `HTTPServer` keeps the handle inside its
/// lifecycle mutex and guarantees `quiesce()` and `stop()` are each called at
/// most once, and nothing after `stop()`. libmicrohttpd allows these calls from
/// any thread (they synchronise with the workers through its ITC channel).
struct MHDDaemon: @unchecked Sendable {
    let handle: OpaquePointer

    /// The version of the libmicrohttpd this process runs on (`MHD_get_version`), e.g. `0.9.75`.
    static var libraryVersion: String { MHD_get_version().map { String(cString: $0) } ?? "unknown" }

    /// Starts a daemon on an already listening socket. `context` is passed to every
    /// callback and must stay valid until `stop()` returns. Returns nil on failure
    /// (libmicrohttpd gives no reason); the socket is then still the caller's.
    static func start(listenFD: Int32, configuration: HTTPServer.Configuration, context: UnsafeMutableRawPointer) -> MHDDaemon? {
        let loop = switch configuration.eventLoop {
        case .poll: MHD_USE_POLL_INTERNAL_THREAD.rawValue
        case .epoll: MHD_USE_EPOLL_INTERNAL_THREAD.rawValue
        }
        let flags = loop | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        var options = tandem_mhd_options(
            flags: flags,
            listen_fd: listenFD,
            thread_pool_size: UInt32(configuration.threads),
            connection_memory_limit: configuration.connectionMemoryLimit,
            connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
            connection_limit: UInt32(configuration.maxConnections),
            listen_backlog: UInt32(configuration.listenBacklog)
        )
        guard let handle = tandem_mhd_start(&options, MHDCallbacks.access, context,
                                            MHDCallbacks.completed, context,
                                            MHDCallbacks.uriLog, context,
                                            MHDCallbacks.acceptPolicy, context,
                                            MHDCallbacks.notifyConnection, context) else { return nil }
        return MHDDaemon(handle: handle)
    }

    /// Stops accepting: removes the listening socket from every worker. Returns
    /// false if libmicrohttpd refused, in which case it still owns (and will close) the socket.
    func quiesce() -> Bool {
        MHD_quiesce_daemon(handle) >= 0
    }

    /// Closes every connection (completion callbacks run with a non-OK code)
    /// and joins the worker threads. Blocks until they have exited.
    /// All suspended connections must have been resumed first.
    func stop() {
        MHD_stop_daemon(handle)
    }

    /// Open connections, or -1 if unknown.
    var currentConnections: Int {
        Int(tandem_mhd_current_connections(handle))
    }
}
