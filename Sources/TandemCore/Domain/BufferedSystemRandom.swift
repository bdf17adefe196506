import Glibc
import Synchronization

/// The kernel's randomness (`getrandom`, through glibc's `arc4random_buf`), drawn 4 KiB at a time and handed out 8 bytes per `next()`: one
/// system call per 512 draws, where `SystemRandomNumberGenerator` makes one per draw (two per message id,
/// ~0.6 µs of every accepted message). The same quality of randomness, for identifiers; keys and secrets
/// use `SecureRandom`/`SystemRandomNumberGenerator` directly.
public struct BufferedSystemRandom: RandomNumberGenerator, Sendable {
    private struct Pool {
        var words = [UInt64](repeating: 0, count: 512)
        var next = 512

        mutating func draw() -> UInt64 {
            if next == words.count {
                // glibc's arc4random_buf is one getrandom call per request (it retries EINTR itself).
                words.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                next = 0
            }
            defer { next += 1 }
            return words[next]
        }
    }

    private static let pool = Mutex(Pool())

    public init() {}

    public mutating func next() -> UInt64 {
        Self.pool.withLock { $0.draw() }
    }
}
