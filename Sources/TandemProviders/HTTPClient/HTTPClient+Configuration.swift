#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension HTTPClient {
    /// Connection and safety limits, fixed for the client's lifetime. Checked by `HTTPClient.init`.
    public struct Configuration: Sendable {
        /// Connections to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`). With HTTP/2, further
        /// connections open only when every existing one has `maxConcurrentStreams` streams;
        /// with HTTP/1.1, requests beyond this wait for a free connection.
        public var maxConnectionsPerHost = 1
        /// Streams per HTTP/2 connection (`CURLMOPT_MAX_CONCURRENT_STREAMS`); the server's
        /// own `SETTINGS_MAX_CONCURRENT_STREAMS` still applies.
        public var maxConcurrentStreams = 100
        /// Open connections in total (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); 0 means no limit.
        public var maxTotalConnections = 0
        /// Idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`).
        public var maxCachedConnections = 16
        /// PEM file of trusted CA certificates (`CURLOPT_CAINFO`); nil means the system store.
        public var caFile: String?
        /// Verify the server's certificate chain and host name. Off only for tests.
        public var verifyPeer = true
        /// Time allowed for DNS, TCP and TLS setup (`CURLOPT_CONNECTTIMEOUT_MS`).
        public var connectTimeout: Duration = .seconds(10)
        /// Total time per request unless the request sets its own (`CURLOPT_TIMEOUT_MS`).
        public var defaultTimeout: Duration = .seconds(30)
        /// Largest response body accepted; larger ones fail with `.responseTooLarge`.
        public var maxResponseBytes = 1 << 20
        /// Proxy URL (`CURLOPT_PROXY`, e.g. `http://proxy:3128`); nil means none. The
        /// `http_proxy`/`https_proxy` environment variables are ignored either way.
        public var proxy: String?

        public init() {}

        /// Throws `.invalidConfiguration` naming the first bad value.
        func validate() throws(HTTPClientError) {
            func require(_ condition: Bool, _ message: String) throws(HTTPClientError) {
                if !condition { throw .invalidConfiguration(message) }
            }
            try require(maxConnectionsPerHost >= 1, "maxConnectionsPerHost must be at least 1")
            try require((1...Int(Int32.max)).contains(maxConcurrentStreams),
                        "maxConcurrentStreams must be between 1 and 2^31-1")
            try require(maxTotalConnections >= 0, "maxTotalConnections must not be negative")
            try require(maxCachedConnections >= 1, "maxCachedConnections must be at least 1")
            try require(connectTimeout > .zero, "connectTimeout must be positive")
            try require(defaultTimeout > .zero, "defaultTimeout must be positive")
            try require(maxResponseBytes >= 0, "maxResponseBytes must not be negative")
            if let caFile {
                try require(access(caFile, R_OK) == 0, "caFile \(caFile) is not readable")
            }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up (a timeout never fires early), at least 1 (curl reads
    /// 0 as "no timeout"), saturating instead of overflowing.
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 1 }
        let (wholeMs, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return Int(Int32.max) }
        let attosecondsPerMs: Int64 = 1_000_000_000_000_000
        let fractionMs = (attoseconds + attosecondsPerMs - 1) / attosecondsPerMs
        return Int(max(1, min(wholeMs + fractionMs, Int64(Int32.max))))
    }
}
