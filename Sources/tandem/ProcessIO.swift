import Foundation
import Synchronization
import TandemCore
#if canImport(Glibc)
import Glibc
#endif

/// Writing to the standard streams with `write(2)`: one call per line, so concurrent log lines do not interleave.
enum ProcessIO {
    static func writeError(_ text: String) { write(fd: 2, text) }
    static func writeOutput(_ text: String) { write(fd: 1, text) }

    private static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// Unix time in seconds, for log lines.
    static func unixTime() -> Double { Date().timeIntervalSince1970 }

    /// Resident set size in bytes, from /proc/self/statm (0 when unavailable).
    static func residentMemoryBytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Turns SIGTERM and SIGINT into an awaitable event. The first signal starts a graceful shutdown; a second
/// one, while the watcher is still alive, ends the process at once with status 1.
///
/// `@unchecked Sendable`: `sources` is written once in `init` and only cancelled in `deinit` (dispatch
/// sources are thread-safe); all mutable state is behind the mutex.
final class SignalWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let state = Mutex<(signal: Int32?, waiter: CheckedContinuation<Int32, Never>?)>((nil, nil))

    init() {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        sources = [SIGTERM, SIGINT].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for (source, number) in zip(sources, [SIGTERM, SIGINT]) {
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    private func received(_ number: Int32) {
        let waiter = state.withLock { current -> CheckedContinuation<Int32, Never>?? in
            guard current.signal == nil else { return .none }
            current.signal = number
            defer { current.waiter = nil }
            return .some(current.waiter)
        }
        switch waiter {
        case .none:
            ProcessIO.writeError("tandem: second signal, exiting without finishing the shutdown\n")
            exit(ExitCode.failure.rawValue)
        case .some(let continuation):
            continuation?.resume(returning: number)
        }
    }

    /// The first SIGTERM or SIGINT (at once if one already arrived).
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let already = state.withLock { current -> Int32? in
                if let signal = current.signal { return signal }
                current.waiter = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }
}

extension ProcessIO {
    /// Unix time in milliseconds, for stored timestamps.
    static func unixMilliseconds() -> Int64 { Int64((unixTime() * 1_000).rounded()) }
    @Sendable static func now() -> Timestamp { Timestamp(milliseconds: unixMilliseconds()) }
}
