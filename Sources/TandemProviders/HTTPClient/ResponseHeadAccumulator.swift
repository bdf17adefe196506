/// Collects the header lines curl passes to `CURLOPT_HEADERFUNCTION`, one line per call
/// (CRLF included), for every response of a transfer: interim 1xx responses, the final
/// response and any trailers. A status line (`HTTP/…`) starts over, so only the final
/// response's fields remain. Pure: no curl, testable line by line.
///
/// Example: `HTTP/1.1 100 Continue`, `X-Interim: 1`, ``, `HTTP/1.1 200 OK`, `Content-Type: a/b`,
/// `` → `statusLineVersion == .http1_1`, `fields == [content-type: a/b]`.
struct ResponseHeadAccumulator {
    private(set) var statusLineVersion: HTTPClientResponse.Version?
    private(set) var fields: [HTTPClientHeader] = []

    mutating func consume(line raw: some Collection<UInt8>) {
        var line = Array(raw)
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            line.removeLast()
        }
        if line.isEmpty { return } // end of one header block
        if line.starts(with: "HTTP/".utf8) {
            fields.removeAll(keepingCapacity: true)
            statusLineVersion = Self.version(ofStatusLine: line)
            return
        }
        if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") {
            // Obsolete line folding: a continuation of the previous field's value.
            guard let previous = fields.indices.last else { return }
            let continuation = Self.trimmed(line[...])
            if !continuation.isEmpty {
                fields[previous].value += " " + String(decoding: continuation, as: UTF8.self)
            }
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return }
        let name = String(decoding: line[..<colon].map(HTTPToken.lowercased), as: UTF8.self)
        let value = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
        fields.append(HTTPClientHeader(name, value))
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    private static func version(ofStatusLine line: [UInt8]) -> HTTPClientResponse.Version? {
        let token = line.prefix { $0 != UInt8(ascii: " ") }
        switch String(decoding: token, as: UTF8.self) {
        case "HTTP/1.0": return .http1_0
        case "HTTP/1.1": return .http1_1
        case "HTTP/2", "HTTP/2.0": return .http2
        case "HTTP/3", "HTTP/3.0": return .http3
        default: return nil
        }
    }
}
