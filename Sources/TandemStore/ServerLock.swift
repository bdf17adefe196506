import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one-server-per-database lock: an exclusive `flock(2)` on `<database>.lock`, holding the owner's
/// process id as text.
///
/// `tandem serve` takes it before it opens the database (before recovery), so a second server on the same
/// SQLite file never recovers or sends the first one's fallbacks; it is released when the process exits,
/// however it exits (the kernel drops the lock with the descriptor), so a crashed server never blocks its
/// successor. Administration commands (`tandem app …`) do not take it: they only run short transactions.
///
/// Not guaranteed: exclusion across machines sharing the file over NFS (flock there is advisory and
/// varies), nor against a process that opens the database without asking for the lock.
public final class ServerLock: Sendable {
    /// Why the lock was not taken.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another process holds it; its pid when the file names one.
        case held(path: String, ownerPID: Int32?)
        /// The lock file could not be created or locked (`errno`).
        case unavailable(path: String, errno: Int32)

        public var description: String {
            switch self {
            case .held(let path, let pid?):
                "another tandem serve (pid \(pid)) is using this database (it holds \(path)); stop it first, or give this one its own database (TANDEM_DB)"
            case .held(let path, nil):
                "another tandem serve is using this database (it holds \(path)); stop it first, or give this one its own database (TANDEM_DB)"
            case .unavailable(let path, let errno):
                "cannot lock \(path): \(String(cString: strerror(errno)))"
            }
        }
    }

    public let path: String
    /// Closed (which releases the lock) by `deinit`; never changed after `init`.
    private let fd: Int32

    /// Takes the lock for `databasePath` without waiting.
    public init(databasePath: String) throws(Failure) {
        let path = databasePath + ".lock"
        // The database's directory is created here when missing, as opening the store would.
        let directory = (databasePath as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unavailable(path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let owner = Self.readPID(fd)
            Glibc.close(fd)
            if code == EWOULDBLOCK { throw .held(path: path, ownerPID: owner) }
            throw .unavailable(path: path, errno: code)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        self.path = path
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let digits = buffer[..<count].prefix { (0x30...0x39).contains($0) }
        return Int32(String(decoding: digits, as: UTF8.self))
    }
}
