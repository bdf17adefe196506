import CCurl

extension CurlEasyHandle {
    /// Sets every option for `request` except the callbacks.
    func apply(_ request: HTTPClientRequest, id: TransferID, configuration: HTTPClient.Configuration) throws(HTTPClientError) {
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_PRIVATE, pointer: UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue)))

        let sendsBody = request.method != .head && (request.method.announcesEmptyBody || !request.body.isEmpty)
        switch request.method {
        case .get where !sendsBody:
            try set(CURLOPT_HTTPGET, 1)
        case .head:
            try set(CURLOPT_NOBODY, 1)
        default:
            if sendsBody { try setBody(request.body) } // makes it a POST …
            if request.method != .post { try set(CURLOPT_CUSTOMREQUEST, request.method.rawValue) } // … unless renamed
        }

        var lines = request.headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        if sendsBody && request.headers.firstValue(named: "content-type") == nil {
            lines.append("Content-Type:") // no curl default of application/x-www-form-urlencoded
        }
        lines.append("Expect:") // never wait for 100-continue
        try setHeaderLines(lines)

        let version = switch request.version {
        case .http1_1: CURL_HTTP_VERSION_1_1
        case .http2: CURL_HTTP_VERSION_2TLS
        case .http2PriorKnowledge: CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
        }
        try set(CURLOPT_HTTP_VERSION, version)
        try set(CURLOPT_PIPEWAIT, 1) // wait to multiplex on a connection being set up rather than open another

        try set(CURLOPT_TIMEOUT_MS, (request.timeout ?? configuration.defaultTimeout).curlMilliseconds)
        try set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_TCP_KEEPIDLE, 60)
        try set(CURLOPT_TCP_KEEPINTVL, 30)

        try set(CURLOPT_PROXY, configuration.proxy ?? "") // "" also disables proxies from the environment
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, caFile) }
        try set(CURLOPT_SSL_VERIFYPEER, configuration.verifyPeer ? 1 : 0)
        try set(CURLOPT_SSL_VERIFYHOST, configuration.verifyPeer ? 2 : 0)

        // Refuses a declared Content-Length over the limit before any body arrives; the write
        // callback enforces it for bodies of unknown length.
        // (0 would mean "no limit" to curl.)
        if configuration.maxResponseBytes > 0 {
            try set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(configuration.maxResponseBytes))
        }
    }
}
