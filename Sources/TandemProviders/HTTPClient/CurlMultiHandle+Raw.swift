import CCurl

/// A `CURLM *` configured for multiplexing, plus one reference on libcurl's global state
/// (`curl_global_init`, counted by curl). Both are released in `deinit` — the multi handle
/// first, global state last — and only there once `init` has stored `raw`, so a throwing
/// `init` cannot double-free them. Every easy handle is released before this object, because
/// the loop thread releases them all before it drops its reference.
///
/// `@unchecked Sendable` invariant: `wakeup()` is the only method called from threads other
/// than the loop thread (curl documents `curl_multi_wakeup` as thread-safe); every other call
/// happens on the loop thread, or in `init` before that thread exists; `deinit` runs when the
/// last reference is dropped, after the loop thread has exited.
final class CurlMultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    init(configuration: HTTPClient.Configuration) throws(HTTPClientError) {
        // Thread-safe in curl ≥ 7.84 built with CURL_VERSION_THREADSAFE (Debian 12's is).
        let global = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard global == CURLE_OK else {
            throw .initialisationFailed("curl_global_init: \(String(cString: curl_easy_strerror(global)))")
        }
        guard let raw = curl_multi_init() else {
            curl_global_cleanup() // `raw` is not stored, so `deinit` will not run
            throw .initialisationFailed("curl_multi_init returned NULL")
        }
        self.raw = raw
        try set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        try set(CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        try set(CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)
        try set(CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
        try set(CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections)
    }

    deinit {
        curl_multi_cleanup(raw)
        curl_global_cleanup()
    }

    private func set(_ option: CURLMoption, _ value: Int) throws(HTTPClientError) {
        let code = tandem_curl_multi_setopt_long(raw, option, value)
        guard code == CURLM_OK else {
            throw .initialisationFailed("curl_multi_setopt(\(option.rawValue)): \(String(cString: curl_multi_strerror(code)))")
        }
    }

    func add(_ easy: UnsafeMutableRawPointer) -> CURLMcode {
        curl_multi_add_handle(raw, easy)
    }

    func remove(_ easy: UnsafeMutableRawPointer) {
        // Fails only for a handle not on this multi, which the driver never passes.
        _ = curl_multi_remove_handle(raw, easy)
    }

    /// Drives every transfer as far as it can go without blocking.
    func perform() -> CURLMcode {
        var running: Int32 = 0
        return curl_multi_perform(raw, &running)
    }

    /// Blocks until a socket is ready, curl's own timer is due, `wakeup()` is called, or
    /// `timeoutMilliseconds` pass — whichever is first.
    func poll(timeoutMilliseconds: Int32) -> CURLMcode {
        curl_multi_poll(raw, nil, 0, timeoutMilliseconds, nil)
    }

    /// Interrupts `poll` from any thread; a wakeup sent before `poll` makes it return at once.
    func wakeup() {
        _ = curl_multi_wakeup(raw)
    }

    /// Transfers that have finished since the last call, with their result codes.
    func finishedTransfers() -> [(easy: UnsafeMutableRawPointer, code: CURLcode)] {
        var finished: [(easy: UnsafeMutableRawPointer, code: CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(raw, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            finished.append((easy, message.pointee.data.result))
        }
        return finished
    }
}
