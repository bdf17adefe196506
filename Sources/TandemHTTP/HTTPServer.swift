import Synchronization

/// An HTTP/1.1 server on libmicrohttpd (internal thread pool, poll or epoll per `Configuration.eventLoop`).
///
/// Requests are routed with a `HTTPRouter`; `sync` handlers run on the worker
/// thread, `async` handlers in a `Task` while the connection is suspended.
/// Bodies are buffered whole (up to `maxBodyBytes`) before a handler runs.
///
/// Not provided: TLS, HTTP/2, request or response streaming, `Expect`
/// handling beyond libmicrohttpd's automatic `100 Continue`, per-client rate
/// limits, or a request timeout for async handlers (a slow handler holds its
/// connection until it returns or shutdown's grace period ends).
public final class HTTPServer: Sendable {
    enum Lifecycle {
        case idle
        case running(daemon: MHDDaemon, listenFD: Int32, port: UInt16)
        case draining
        case stopped
    }

    /// The settings the server was created with.
    public let configuration: Configuration
    let core: ServerCore
    let lifecycle = Mutex(Lifecycle.idle)

    /// - Parameter onRequestCompleted: called exactly once per request on a
    ///   libmicrohttpd worker thread, after the response has been sent (or the
    ///   request was abandoned). Keep it fast and non-blocking: it delays that
    ///   worker's other connections.
    public init(configuration: Configuration, router: HTTPRouter, onRequestCompleted: @escaping @Sendable (AccessRecord) -> Void) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, router: router, onRequestCompleted: onRequestCompleted)
    }

    deinit {
        // Dropped without shutdown: stop hard. Suspended connections must be resumed first.
        lifecycle.withLock { state in
            if case .running(let daemon, _, _) = state {
                core.suspended.closeAndAbandonAll()
                daemon.stop() // also closes the listening socket (it was never quiesced)
            }
            state = .stopped
        }
    }

    /// Binds, listens and starts the daemon; returns the bound port (useful with port 0).
    /// A server starts at most once; after `shutdown` create a new one.
    public func start() throws(HTTPServerError) -> UInt16 {
        try configuration.validate()
        let listener = try HTTPListener(host: configuration.host, port: configuration.port, backlog: configuration.listenBacklog)
        do {
            return try start(on: listener)
        } catch {
            listener.close()
            throw error
        }
    }

    /// Starts the daemon on a listener bound earlier (its host and port replace the configuration's).
    /// On failure the listener is still the caller's to close.
    public func start(on listener: HTTPListener) throws(HTTPServerError) -> UInt16 {
        try configuration.validate()
        let configuration = self.configuration
        let context = Unmanaged.passUnretained(core).toOpaque()
        return try lifecycle.withLock { state throws(HTTPServerError) -> UInt16 in
            guard case .idle = state else { throw .alreadyStarted }
            let socket = listener.socket
            // `core` outlives the daemon: deinit and shutdown stop the daemon before `core` is released.
            guard let daemon = MHDDaemon.start(listenFD: socket.fd, configuration: configuration, context: context) else {
                throw .daemonStartFailed
            }
            state = .running(daemon: daemon, listenFD: socket.fd, port: socket.port)
            return socket.port
        }
    }

    /// The bound port while running (nil before `start()` and once shutdown has begun).
    public var port: UInt16? {
        lifecycle.withLock { state in
            if case .running(_, _, let port) = state { return port }
            return nil
        }
    }

    /// Requests that have started (request line parsed) and not yet completed,
    /// including ones waiting for an async handler. Idle keep-alive connections are not counted.
    public var inFlightRequests: Int {
        core.inFlight.load(ordering: .acquiring)
    }
}
