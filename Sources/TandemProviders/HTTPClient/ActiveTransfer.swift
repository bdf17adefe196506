import CCurl

/// One request on the multi handle: its easy handle and the response as it arrives.
/// Not Sendable: lives on the loop thread only, kept alive by `LoopDriver.active` for as
/// long as the easy handle is on the multi handle (curl's callbacks point at it unretained).
final class ActiveTransfer {
    let ticket: TransferTicket
    let easy: CurlEasyHandle
    private let maxResponseBytes: Int
    private var head = ResponseHeadAccumulator()
    private var body: [UInt8] = []
    private var reservedBody = false
    private(set) var bodyLimitExceeded = false

    init(ticket: TransferTicket, configuration: HTTPClient.Configuration) throws(HTTPClientError) {
        self.ticket = ticket
        self.maxResponseBytes = configuration.maxResponseBytes
        easy = try CurlEasyHandle()
        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.apply(ticket.request, id: ticket.id, configuration: configuration)
        try easy.setWriteCallback({ data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<ActiveTransfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        }, context: context)
        try easy.setHeaderCallback({ data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<ActiveTransfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            transfer.head.consume(line: UnsafeRawBufferPointer(start: data, count: length))
            return length
        }, context: context)
    }

    /// Appends body bytes; false (abort the transfer) once the limit would be exceeded.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            bodyLimitExceeded = true
            return false
        }
        if !reservedBody {
            reservedBody = true
            if let length = easy.infoOffset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T), length > 0 {
                body.reserveCapacity(Int(min(length, Int64(maxResponseBytes))))
            }
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// The outcome once curl reports the transfer done with `code`.
    func result(_ code: CURLcode) -> TransferResult {
        guard code == CURLE_OK else {
            return .failure(.fromCurl(code, message: easy.errorMessage(for: code),
                                      bodyLimitExceeded: bodyLimitExceeded, limit: maxResponseBytes))
        }
        let version: HTTPClientResponse.Version? = switch easy.infoLong(CURLINFO_HTTP_VERSION) {
        case CURL_HTTP_VERSION_1_0: .http1_0
        case CURL_HTTP_VERSION_1_1: .http1_1
        case CURL_HTTP_VERSION_2_0: .http2
        case CURL_HTTP_VERSION_3: .http3
        default: head.statusLineVersion
        }
        return .success(HTTPClientResponse(
            status: easy.infoLong(CURLINFO_RESPONSE_CODE) ?? 0,
            headers: head.fields,
            body: body,
            version: version ?? .http1_1))
    }

    /// New connections this transfer opened.
    var connectionsOpened: Int {
        easy.infoLong(CURLINFO_NUM_CONNECTS) ?? 0
    }
}
