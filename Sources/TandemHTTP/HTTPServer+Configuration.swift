extension HTTPServer {
    /// Listening and limit settings. Validated by `start()`.
    public struct Configuration: Sendable {
        /// An IPv4 or IPv6 address literal to bind (`"127.0.0.1"`, `"0.0.0.0"`, `"::1"`, `"[::]"`). Names are not resolved.
        public var host: String = "127.0.0.1"
        /// The TCP port; 0 picks an ephemeral port (returned by `start()`).
        public var port: UInt16 = 0
        /// libmicrohttpd worker threads (each runs its own epoll loop). Sync handlers run on these.
        public var threads: Int = 4
        /// Largest accepted request body. A larger `Content-Length` gets 413 at once
        /// (connection closed); a chunked body that grows past it gets 413 when it
        /// ends, or the connection is dropped unanswered after another
        /// `max(maxBodyBytes, 64 KiB)` bytes.
        public var maxBodyBytes: Int = 8 * 1024 * 1024
        /// Largest accepted header block (sum of `name: value\r\n` lines); larger ones get 431.
        public var maxHeaderBytes: Int = 8 * 1024
        /// Longest accepted request-target; longer ones get 414.
        public var maxURLBytes: Int = 4 * 1024
        /// Idle seconds before libmicrohttpd closes a connection (0 = never). Suspended (async) requests do not time out.
        public var connectionTimeoutSeconds: Int = 30
        /// Most simultaneous connections; beyond it libmicrohttpd accepts and closes at once.
        public var maxConnections: Int = 1024
        /// Most simultaneous connections from one client address (0 = no limit). A connection past it has
        /// its first request answered 429 and is closed; past it by more than
        /// `ConnectionsPerAddress.answeredExcess`, new ones are closed at accept. Behind a reverse proxy every
        /// connection comes from the proxy's address: raise it or set 0 there.
        public var maxConnectionsPerAddress: Int = 512
        /// Most request-body bytes held in memory by all connections together. A request whose body would
        /// pass it is answered 503 with `Retry-After` (before its body is read when it declares a length).
        public var maxBufferedBodyBytes: Int = 256 * 1024 * 1024
        /// `listen(2)` backlog (the kernel caps it at `net.core.somaxconn`).
        public var listenBacklog: Int = 1024
        /// How each worker thread waits for socket events. See `EventLoop`.
        public var eventLoop: EventLoop = .epoll

        /// The readiness mechanism libmicrohttpd's worker threads use.
        public enum EventLoop: Sendable, Hashable {
            /// `poll(2)`, level-triggered. Its cost per wake-up grows with the open
            /// connections per worker thread, but it sees every client close at once
            /// (see the caveat on `.epoll`). Measured on the 2-core dev box, as fast
            /// as epoll at 64 connections.
            case poll
            /// `epoll(7)`, edge-triggered (`MHD_USE_EPOLL_INTERNAL_THREAD`). The default:
            /// it scales to many idle keep-alive connections. Caveat: with libmicrohttpd
            /// 0.9.75 it misses a client's close when it arrives together with (or right
            /// after) the last bytes of an incomplete request body, leaving that request
            /// in flight until `connectionTimeoutSeconds` expires (which can also hold a
            /// graceful shutdown until then, within its grace period).
            case epoll
        }

        public init(host: String = "127.0.0.1", port: UInt16 = 0) {
            self.host = host
            self.port = port
        }

        /// Per-connection memory for libmicrohttpd (request line, headers, read
        /// buffer, response headers). Sized so that our own 414/431 checks run
        /// before libmicrohttpd runs out of room (beyond it libmicrohttpd answers
        /// 414/431 itself), and no larger: libmicrohttpd 0.9.75 zeroes all of it
        /// after every request (`MHD_pool_reset`), so its size is paid per request,
        /// in the memset and in what it evicts from the cache (256 connections × 40 KiB
        /// cycled 10 MiB per round of requests). The 8 KiB beyond the request line and
        /// headers hold the response headers and the first part of a body (the read
        /// buffer grows into what is left; a body is read in as many pieces as needed).
        var connectionMemoryLimit: Int {
            maxURLBytes + maxHeaderBytes + 8 * 1024
        }

        func validate() throws(HTTPServerError) {
            if threads < 1 || threads > 1024 { throw .invalidConfiguration("threads must be 1...1024") }
            if maxBodyBytes < 0 { throw .invalidConfiguration("maxBodyBytes must be >= 0") }
            if maxHeaderBytes < 256 { throw .invalidConfiguration("maxHeaderBytes must be >= 256") }
            if maxURLBytes < 16 { throw .invalidConfiguration("maxURLBytes must be >= 16") }
            if connectionMemoryLimit > Int(UInt32.max) { throw .invalidConfiguration("maxURLBytes + maxHeaderBytes too large") }
            if connectionTimeoutSeconds < 0 || connectionTimeoutSeconds > Int(UInt32.max) {
                throw .invalidConfiguration("connectionTimeoutSeconds out of range")
            }
            if maxConnections < 1 || maxConnections > Int(UInt32.max) { throw .invalidConfiguration("maxConnections must be >= 1") }
            if maxConnectionsPerAddress < 0 { throw .invalidConfiguration("maxConnectionsPerAddress must be >= 0") }
            if maxBufferedBodyBytes < maxBodyBytes { throw .invalidConfiguration("maxBufferedBodyBytes must be >= maxBodyBytes") }
            if listenBacklog < 1 || listenBacklog > Int(Int32.max) { throw .invalidConfiguration("listenBacklog must be >= 1") }
        }
    }
}
