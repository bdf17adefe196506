#if canImport(Glibc)
import Glibc
#endif

/// A tiny blocking HTTP/1.1 client over one TCP connection to 127.0.0.1,
/// so tests control exactly which bytes go on the wire and when. Not thread-safe;
/// use it from a single thread (see `onThread`), never on the Swift concurrency pool.
final class RawHTTPClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, receiveTimeoutSeconds: Int = 30) throws(RawClientError) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(errno: errno) }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = RawHTTPClient.connect(fd: fd, port: port)
        guard result == 0 else {
            close(fd)
            throw .connectFailed(errno: result)
        }
    }

    deinit { close(fd) }

    /// 0 on success, else errno.
    private static func connect(fd: Int32, port: UInt16) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return rc == 0 ? 0 : errno
    }

    /// Tries a fresh connection; returns errno (0 if it connected).
    static func connectErrno(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return connect(fd: fd, port: port)
    }

    func send(_ text: String) throws(RawClientError) {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws(RawClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .sendFailed(errno: errno)
            }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false on orderly EOF.
    private func fill() throws(RawClientError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw .receiveFailed(errno: errno)
        }
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// Reads one response. For `HEAD` requests pass `bodyless: true` (Content-Length is then not followed).
    func readResponse(bodyless: Bool = false) throws(RawClientError) -> RawHTTPResponse {
        var end = headerEnd()
        while end == nil {
            guard try fill() else { throw .closedByPeer }
            end = headerEnd()
        }
        guard let end else { throw .malformed("no header end") }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { throw .malformed(head) }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw .malformed(head) }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed(String(line)) }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].trimmingSpaces)))
        }
        let partial = RawHTTPResponse(status: status, headers: headers, body: [])
        if bodyless || status == 204 || status == 304 {
            return partial
        }
        if let length = partial.header("Content-Length").flatMap({ Int($0) }) {
            while buffer.count < length {
                guard try fill() else { throw .closedByPeer }
            }
            let body = Array(buffer[0..<length])
            buffer.removeFirst(length)
            return RawHTTPResponse(status: status, headers: headers, body: body)
        }
        if partial.header("Transfer-Encoding")?.lowercased() == "chunked" {
            return RawHTTPResponse(status: status, headers: headers, body: try readChunkedBody())
        }
        while try fill() {}
        let body = buffer
        buffer = []
        return RawHTTPResponse(status: status, headers: headers, body: body)
    }

    private func readLine() throws(RawClientError) -> String {
        while true {
            if let i = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[0..<i], as: UTF8.self)
                buffer.removeFirst(i + 2)
                return line
            }
            guard try fill() else { throw .closedByPeer }
        }
    }

    private func readChunkedBody() throws(RawClientError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine()
            guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { throw .malformed(sizeLine) }
            if size == 0 {
                while try readLine() != "" {}
                return body
            }
            while buffer.count < size + 2 {
                guard try fill() else { throw .closedByPeer }
            }
            body.append(contentsOf: buffer[0..<size])
            buffer.removeFirst(size + 2)
        }
    }

    /// Everything the peer still sends until it closes the connection (what follows the last response read).
    func readToEnd() throws(RawClientError) -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Whether the peer has closed the connection (EOF or reset) with no further data pending.
    func peerClosed() -> Bool {
        guard buffer.isEmpty else { return false }
        do { return try !fill() } catch { return true }
    }
}
