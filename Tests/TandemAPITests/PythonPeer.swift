import Foundation
import TandemTestSupport

/// A `Tests/peers/<script>` run with the venv's Python (`TANDEM_PYTHON`, set by `make unit`; else the
/// repository's `.venv`, else `python3`), like the provider tests' `PeerProcess.pythonPeer`. The script
/// prints `PORT <n>` first and exits when this process is gone; `stop()` (or deinit) terminates it.
final class PythonPeer: Sendable {
    let port: Int
    private let process: ChildProcess

    private init(port: Int, process: ChildProcess) {
        self.port = port
        self.process = process
    }

    static func start(_ script: String, arguments: [String] = []) async throws -> PythonPeer {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let venv = repository + "/.venv/bin/python"
        let python = ProcessInfo.processInfo.environment["TANDEM_PYTHON"]
            ?? (FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3")
        let process = try ChildProcess([python, repository + "/Tests/peers/" + script] + arguments, output: .pipe)
        let text = await process.firstLine()
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).split(separator: " ").first ?? "") else {
            process.terminate()
            throw PythonPeerError(message: "peer \(script) failed to start: \(text)")
        }
        return PythonPeer(port: port, process: process)
    }

    /// SIGTERM, then SIGKILL if the peer is still there after 5 s.
    func stop() {
        process.terminate()
    }

    deinit { stop() }
}

struct PythonPeerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
