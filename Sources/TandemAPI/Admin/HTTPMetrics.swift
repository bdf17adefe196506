import Synchronization
import TandemCore
import TandemHTTP

/// The HTTP server's own series: requests by route and status, and latency by route.
///
/// Routes are the matched patterns (`/v1.0/deviceregistrations/{id}`) or `unmatched`, never raw paths, so
/// the number of series stays bounded whatever clients send.
public final class HTTPMetrics: Sendable {
    private let requests: CounterFamily
    private let latency: HistogramFamily
    /// Each (method, route, status) seen, with its two series resolved once: a request's series are found
    /// with one lookup, without building or hashing label arrays. Bounded like the series themselves.
    private let known = Mutex<[SeriesKey: (requests: Counter, latency: Histogram)]>([:])

    private struct SeriesKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    /// Upper bounds in seconds, from 100 µs to 10 s.
    public static let latencyBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public init(registry: MetricsRegistry) {
        requests = registry.counter("tandem_http_requests_total", help: "HTTP requests answered, by method, route and status.",
                                    labels: ["method", "route", "status"])
        latency = registry.histogram("tandem_http_request_duration_seconds",
                                     help: "Time from the request line to the response being handed to the connection.",
                                     labels: ["route"], buckets: Self.latencyBuckets)
    }

    public func record(_ access: AccessRecord) {
        let key = SeriesKey(method: access.method, route: access.route, status: access.status)
        let series = known.withLock { known in
            if let found = known[key] { return found }
            let resolved = (requests: requests.series([access.method, access.route, String(access.status)]),
                            latency: latency.series([access.route]))
            known[key] = resolved
            return resolved
        }
        series.requests.increment()
        series.latency.observe(access.durationSeconds)
    }
}
