#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A connected, non-blocking, close-on-exec TCP socket with `TCP_NODELAY`: thin wrappers over the
/// POSIX calls one SMPP connection needs.
///
/// Threads: the connection's own thread reads (`receive`) and is the only one that `close`s. Any thread
/// may `send` or `shutdown`: both take the lock `close` takes, so no write ever reaches a descriptor number
/// that was closed and reused. `send` blocks its caller (polling for `POLLOUT`) until every octet is
/// written or `sendTimeout` passes.
final class SMPPSocket: Sendable {
    let descriptor: Int32
    private let sendTimeout: Duration
    private let isOpen = Mutex(true)

    private init(descriptor: Int32, sendTimeout: Duration) {
        self.descriptor = descriptor
        self.sendTimeout = sendTimeout
    }

    deinit {
        close()
    }

    /// Resolves `host` and connects to the first address that accepts within `timeout` (for each).
    static func connect(host: String, port: Int, timeout: Duration) throws(SMPPBindError) -> SMPPSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw .unreachable("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(first) }
        var problem = "no address for \(host)"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let fd = socket(address.pointee.ai_family, type, 0)
            guard fd >= 0 else {
                problem = "socket: \(String(cString: strerror(errno)))"
                continue
            }
            if let failure = connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen, timeout: timeout) {
                problem = "connect to \(host):\(port): \(failure)"
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return SMPPSocket(descriptor: fd, sendTimeout: timeout)
        }
        throw .unreachable(problem)
    }

    /// Nil on success, else what went wrong.
    private static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t,
                                timeout: Duration) -> String? {
        if Glibc.connect(fd, address, length) == 0 { return nil }
        guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&entry, 1, timeout.pollMilliseconds)
        guard ready > 0 else { return ready == 0 ? "timed out" : String(cString: strerror(errno)) }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { return String(cString: strerror(errno)) }
        return error == 0 ? nil : String(cString: strerror(error))
    }

    /// Writes all of `bytes`; false if the socket is closed, fails, or stays full for `sendTimeout`.
    func send(_ bytes: [UInt8]) -> Bool {
        isOpen.withLock { open in
            guard open else { return false }
            var offset = 0
            let deadline = ContinuousClock.now + sendTimeout
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { buffer in
                    Glibc.send(descriptor, buffer.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                }
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    let remaining = deadline - ContinuousClock.now
                    guard remaining > .zero else { return false }
                    var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, remaining.pollMilliseconds)
                } else {
                    return false
                }
            }
            return true
        }
    }

    enum Received {
        case data(Int)
        /// Nothing to read now.
        case none
        /// The peer closed the connection, or it failed (with the reason).
        case closed(String)
    }

    /// Reads what is available into the front of `scratch` (at most its size): `.data(n)` for the first
    /// `n` octets. Owning thread only.
    func receive(into scratch: inout [UInt8]) -> Received {
        let count = scratch.withUnsafeMutableBytes { raw in
            recv(descriptor, raw.baseAddress!, raw.count, 0)
        }
        let code = errno
        if count > 0 { return .data(count) }
        if count == 0 { return .closed("closed by the SMSC") }
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .none }
        return .closed(String(cString: strerror(code)))
    }

    /// Ends the connection in both directions without releasing the descriptor; the owning thread's
    /// next read sees it closed. Any thread.
    func shutdown() {
        isOpen.withLock { open in
            if open { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Releases the descriptor (idempotent). Owning thread only (or `deinit`).
    func close() {
        isOpen.withLock { open in
            guard open else { return }
            open = false
            Glibc.close(descriptor)
        }
    }
}
