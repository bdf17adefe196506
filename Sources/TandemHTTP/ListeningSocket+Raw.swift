#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Thin wrappers over the socket calls that create, stop and close the
/// listening socket handed to libmicrohttpd.
///
/// Only address literals are accepted: there is no name resolution. For an
/// IPv6 host the socket keeps the kernel's default `IPV6_V6ONLY` setting, so
/// `::` may or may not also accept IPv4 depending on `net.ipv6.bindv6only`.
enum ListeningSocket {
    /// A bound, listening, non-blocking, close-on-exec socket.
    struct Bound {
        let fd: Int32
        let port: UInt16
    }

    static func open(host: String, port: UInt16, backlog: Int) throws(HTTPServerError) -> Bound {
        var literal = host
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }

        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
        } else {
            throw .invalidHost(host)
        }

        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(family, type, 0)
        guard fd >= 0 else { throw .socketFailed(errno: errno) }

        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .socketFailed(errno: code)
        }

        let bindResult: Int32
        if family == AF_INET {
            bindResult = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            bindResult = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bindResult == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .bindFailed(host: host, port: port, errno: code)
        }
        guard listen(fd, Int32(backlog)) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .listenFailed(errno: code)
        }

        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .listenFailed(errno: code)
        }
        let boundPort: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        }
        return Bound(fd: fd, port: boundPort)
    }

    /// Stops listening without releasing the descriptor number: on Linux,
    /// `shutdown(2)` on a listening socket resets its queue and makes new
    /// connection attempts fail with `ECONNREFUSED`. Keeping the number
    /// reserved matters because libmicrohttpd's worker threads may still hold
    /// it until `MHD_stop_daemon` returns.
    static func stopListening(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// The IP address in `address` as text, or `nil` for other families.
    static func text(of address: UnsafePointer<sockaddr>) -> String? {
        // Formatted in a stack buffer (this runs for every request).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            let size = socklen_t(buffer.count)
            let formatted: UnsafePointer<CChar>?
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                formatted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var addr = v4.pointee.sin_addr
                    return inet_ntop(AF_INET, &addr, base, size)
                }
            case AF_INET6:
                formatted = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var addr = v6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &addr, base, size)
                }
            default:
                formatted = nil
            }
            return formatted.map { String(cString: $0) }
        }
    }
}
