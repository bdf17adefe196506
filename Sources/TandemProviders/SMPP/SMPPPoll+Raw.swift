#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Blocks in `poll(2)` on a socket (if any) and a wake-up pair.
enum SMPPPoll {
    struct Ready {
        var readable = false
        var woken = false
    }

    /// Returns when `socket` has something to read (or closed), `wakeup` was woken, or `timeout`
    /// passed (nil: no timeout). Timeouts round up to whole milliseconds: never early.
    static func wait(socket: SMPPSocket?, wakeup: SMPPWakeup, timeout: Duration?) -> Ready {
        var entries = [pollfd(fd: wakeup.pollDescriptor, events: Int16(POLLIN), revents: 0)]
        if let socket { entries.append(pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { $0.pollMilliseconds } ?? -1
        let count = poll(&entries, nfds_t(entries.count), milliseconds)
        guard count > 0 else { return Ready() }
        return Ready(readable: entries.count > 1 && entries[1].revents != 0, woken: entries[0].revents != 0)
    }
}
