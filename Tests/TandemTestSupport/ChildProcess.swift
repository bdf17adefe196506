import CSpawn
import Foundation

/// A program the tests run (a Python peer, openssl, PostgreSQL's tools), spawned with `posix_spawnp` and
/// reaped by a thread of its own. Not Foundation's `Process`: on this toolchain its `run()` over-reads
/// /proc/self/fd now and then and takes the whole test process down (swift-corelibs-foundation, fixed
/// upstream in PR #5472).
///
/// The child inherits no descriptor of the test process but 0–2 (pipes are made close-on-exec and
/// `closefrom(3)` runs in the child, so a peer started by one test never holds another test's pipe open),
/// starts with no signal blocked and every signal at its default action (Swift's threads block most signals,
/// and a mask is inherited), and stays in the test process's process group.
///
/// `@unchecked Sendable`: the pipes' read ends are read by one caller at a time; the exit status is
/// guarded by `reaper`'s lock.
public final class ChildProcess: @unchecked Sendable {
    /// What the child reads on its standard input.
    public enum Input: Sendable {
        case null
        /// These bytes, written by a thread of their own (a child that writes much before it has read all of
        /// its input would otherwise block against a parent blocked writing), then end of file.
        case bytes([UInt8])
    }

    /// Where the child's standard output or standard error goes.
    public enum Output: Sendable {
        /// The test process's own.
        case inherit
        case null
        /// A pipe, read with ``firstLine()``, ``readOutput()``, ``readErrors()``.
        case pipe
        /// A file, created or truncated.
        case file(String)
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    /// How the child ended.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let pid: pid_t
    private let outputPipe: Int32?
    private let errorPipe: Int32?
    private let reaper: Reaper

    /// Starts `argv` — `argv[0]` a path, or a name looked up on `PATH` — with the test process's environment.
    public init(_ argv: [String], input: Input = .null, output: Output = .inherit, errors: Output = .inherit) throws {
        precondition(!argv.isEmpty, "no program to run")
        if case .standardOutput = output { preconditionFailure("standard output cannot go to itself") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Descriptors of the parent's ends and of the child's ends, closed after the spawn (or on failure).
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        func pipeEnds() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard pipe2(&fds, O_CLOEXEC) == 0 else {
                throw Failure(description: "cannot start \(argv[0]): pipe: \(String(cString: strerror(errno)))")
            }
            return (fds[0], fds[1])
        }
        do {
            var feed: (fd: Int32, bytes: [UInt8])?
            switch input {
            case .null:
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            case .bytes(let bytes):
                let ends = try pipeEnds()
                parentEnds.append(ends.write)
                childEnds.append(ends.read)
                posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
                feed = (ends.write, bytes)
            }
            func direct(_ destination: Output, to fd: Int32) throws -> Int32? {
                switch destination {
                case .inherit:
                    return nil
                case .null:
                    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0)
                    return nil
                case .pipe:
                    let ends = try pipeEnds()
                    parentEnds.append(ends.read)
                    childEnds.append(ends.write)
                    posix_spawn_file_actions_adddup2(&actions, ends.write, fd)
                    return ends.read
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    return nil
                case .standardOutput:
                    posix_spawn_file_actions_adddup2(&actions, 1, fd)
                    return nil
                }
            }
            outputPipe = try direct(output, to: 1)
            errorPipe = try direct(errors, to: 2)
            posix_spawn_file_actions_addclosefrom_np(&actions, 3)

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var signals = sigset_t()
            sigemptyset(&signals)
            posix_spawnattr_setsigmask(&attributes, &signals)
            sigfillset(&signals)
            posix_spawnattr_setsigdefault(&attributes, &signals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            var cArguments = argv.map { strdup($0) } + [nil]
            defer { for argument in cArguments { free(argument) } }
            var pid: pid_t = 0
            let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, &cArguments, environ)
            guard spawned == 0 else {
                throw Failure(description: "cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
            }
            self.pid = pid
            if let feed { Self.feed(feed.bytes, to: feed.fd) }
        } catch {
            for fd in parentEnds { close(fd) }
            throw error
        }
        let reaper = Reaper()
        self.reaper = reaper
        let thread = Thread { [pid] in reaper.reap(pid) }
        thread.name = "child-\(pid)"
        thread.start()
    }

    deinit {
        if let outputPipe { close(outputPipe) }
        if let errorPipe { close(errorPipe) }
    }

    // MARK: Output

    /// The first line of standard output (a pipe), without the newline; what came before end of file if there
    /// is no newline. Read on a thread of its own: a peer takes up to seconds to print its port, and a test
    /// blocking a thread of the cooperative pool that long starves every other test of the pool's few threads.
    public func firstLine() async -> String {
        guard let fd = outputPipe else { preconditionFailure("standard output is not a pipe") }
        return await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let reader = Thread { continuation.resume(returning: Self.readFirstLine(fd)) }
            reader.name = "child-\(pid)-line"
            reader.start()
        }
    }

    /// Everything written to standard output (a pipe) until every writer has closed it.
    public func readOutput() -> [UInt8] {
        guard let fd = outputPipe else { preconditionFailure("standard output is not a pipe") }
        return Self.readToEnd(fd)
    }

    /// Everything written to standard error (a pipe) until every writer has closed it.
    public func readErrors() -> [UInt8] {
        guard let fd = errorPipe else { preconditionFailure("standard error is not a pipe") }
        return Self.readToEnd(fd)
    }

    // MARK: Exit

    /// Blocks until the child has ended.
    public func wait() -> Status {
        reaper.wait(until: nil)!
    }

    /// Blocks until the child has ended or `timeout` has passed (then nil).
    private func wait(timeout: Duration) -> Status? {
        reaper.wait(until: Date(timeIntervalSinceNow: Double(timeout.components.seconds)
                                                    + Double(timeout.components.attoseconds) * 1e-18))
    }

    /// SIGTERM, then SIGKILL if the child is still there after `grace`; returns once it has ended (at once if
    /// it already had).
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) -> Status {
        reaper.signal(SIGTERM, pid)
        if let status = wait(timeout: grace) { return status }
        reaper.signal(SIGKILL, pid)
        return wait()
    }

    /// The child's status once the reaper has collected it. The reaper waits for the child to end without
    /// reaping it (`WNOWAIT`), then reaps it under the lock that ``signal(_:_:)`` holds: while the lock is
    /// held and no status is recorded, the pid is still this child's (a zombie's pid is not reused).
    private final class Reaper: @unchecked Sendable {
        private let condition = NSCondition()
        private var status: Status?

        func reap(_ pid: pid_t) {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
                precondition(errno == EINTR, "waitid(\(pid)): \(String(cString: strerror(errno)))")
            }
            condition.lock()
            defer { condition.unlock() }
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 {
                precondition(errno == EINTR, "waitpid(\(pid)): \(String(cString: strerror(errno)))")
            }
            // WIFEXITED(raw) ? .exited(WEXITSTATUS(raw)) : .signalled(WTERMSIG(raw))
            status = raw & 0x7f == 0 ? .exited((raw >> 8) & 0xff) : .signalled(raw & 0x7f)
            condition.broadcast()
        }

        func signal(_ signal: Int32, _ pid: pid_t) {
            condition.lock()
            defer { condition.unlock() }
            if status == nil { kill(pid, signal) }
        }

        func wait(until deadline: Date?) -> Status? {
            condition.lock()
            defer { condition.unlock() }
            while status == nil {
                if let deadline {
                    guard condition.wait(until: deadline) else { return status }
                } else {
                    condition.wait()
                }
            }
            return status
        }
    }

    // MARK: Pipes

    /// Writes `bytes` to `fd` on a thread of its own, then closes it. SIGPIPE is blocked on that thread: a
    /// child that exits without reading all of its input makes the write fail with EPIPE instead of killing
    /// the test process (the signal stays pending on the thread and goes with it).
    private static func feed(_ bytes: [UInt8], to fd: Int32) {
        let writer = Thread {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let count = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    offset += count
                }
            }
            close(fd)
        }
        writer.name = "child-input"
        writer.start()
    }

    // Reading with `read(2)`, retrying on `EINTR`: a signal (SIGCHLD from another test's child) interrupts a
    // blocked read now and then. (`FileHandle.availableData` and `readDataToEndOfFile()` trapped on it.)

    private static func readFirstLine(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        readRetrying(fd) { chunk in
            bytes += chunk
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return true }
            bytes = Array(bytes[..<newline])
            return false
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func readToEnd(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        readRetrying(fd) { chunk in
            bytes += chunk
            return true
        }
        return bytes
    }

    /// Reads until end of file (or an error other than `EINTR`), handing each chunk to `take` while it returns true.
    private static func readRetrying(_ fd: Int32, _ take: (ArraySlice<UInt8>) -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0, take(buffer[..<count]) else { return }
        }
    }
}
