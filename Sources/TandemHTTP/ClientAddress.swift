#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A peer's IP address as a hashable value (its 4 or 16 address bytes), for counting connections per address.
struct ClientAddress: Hashable, Sendable {
    /// IPv4 addresses in the low 32 bits of `low` with `high` zero and `isV6` false.
    let high: UInt64
    let low: UInt64
    let isV6: Bool

    /// The address of `address`; nil for families other than IPv4 and IPv6.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            (high, low, isV6) = (0, UInt64(raw), false)
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) }
            }
            (high, low, isV6) = (Self.word(bytes[0..<8]), Self.word(bytes[8..<16]), true)
        default:
            return nil
        }
    }

    private static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
