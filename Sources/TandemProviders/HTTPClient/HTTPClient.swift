/// An asynchronous HTTP/1.1 and HTTP/2 client on one libcurl multi handle, driven by one
/// dedicated thread (not a thread per request).
///
/// - Concurrent requests to one host share connections: HTTP/2 streams are multiplexed on
///   a connection (`CURLPIPE_MULTIPLEX`, `CURLOPT_PIPEWAIT`), up to
///   `maxConcurrentStreams` per connection and `maxConnectionsPerHost` connections; idle
///   connections are kept for reuse.
/// - A request whose task is cancelled is removed from the multi handle before `send`
///   throws `.cancelled`. An HTTP/2 stream is reset and its connection kept; an HTTP/1.1
///   connection, or a connection still being set up for that request, is closed.
/// - `shutdown()` fails queued and running requests with `.shutdown` and stops the thread.
///   Dropping the last reference does the same without waiting.
///
/// Not guaranteed: ordering between concurrent requests; that a request which timed out or
/// was cancelled did not reach the server. Not done: redirects (never followed),
/// decompression (no `Accept-Encoding` is sent, bodies are returned as received), cookies,
/// HTTP/2 keep-alive pings, proxies from the environment (only `Configuration.proxy`).
public final class HTTPClient: Sendable {
    private let loop: CurlEventLoop

    public init(configuration: Configuration = Configuration()) throws(HTTPClientError) {
        try configuration.validate()
        let loop = try CurlEventLoop(configuration: configuration)
        try loop.startThread()
        self.loop = loop
    }

    deinit {
        // Does not wait: the loop thread fails what is left and releases the curl handles.
        loop.shutdown(waiter: nil)
    }

    /// Sends `request` and waits for the complete response. An HTTP error status is a
    /// response, not an error.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        if let problem = request.validationProblem { throw .invalidRequest(problem) }
        let ticket = loop.makeTicket(for: request)
        let loop = self.loop
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: TransferContinuation) in
                guard ticket.wait(continuation) else { return }
                if !loop.submit(ticket) { ticket.finish(.failure(.shutdown)) }
            }
        } onCancel: {
            if ticket.cancel() { loop.cancel(ticket.id) }
        }
        return try result.get()
    }

    /// Fails queued and running requests with `.shutdown`, refuses new ones, and returns once
    /// the loop thread has released every easy handle. Safe to call more than once.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            loop.shutdown(waiter: continuation)
        }
    }

    public var statistics: HTTPClientStatistics {
        loop.counters.snapshot()
    }

    /// For tests: the loop, to observe that its thread releases it after `deinit`.
    var eventLoopForTesting: AnyObject { loop }
}
