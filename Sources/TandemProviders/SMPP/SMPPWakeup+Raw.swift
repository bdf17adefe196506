#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Wakes a thread blocked in `SMPPPoll.wait`: one end of a non-blocking socket pair that threads write
/// to, the other that the sleeping thread polls. Writes that find the pair full are dropped: one
/// pending wake-up is as good as many.
final class SMPPWakeup: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init?() {
        var ends: [Int32] = [0, 0]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return nil }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = Glibc.send(writeEnd, &byte, 1, Int32(MSG_NOSIGNAL))
    }

    /// Empties the pair (sleeping thread only).
    func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while recv(readEnd, &scratch, scratch.count, 0) > 0 {}
    }

    var pollDescriptor: Int32 { readEnd }
}
