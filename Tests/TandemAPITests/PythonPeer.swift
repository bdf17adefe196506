import Foundation
import TandemTestSupport

/// A `Tests/peers/<script>` run with the venv's Python (`TANDEM_PYTHON`, set by `make unit`; else the
/// repository's `.venv`, else `python3`), like the provider tests' `PeerProcess.pythonPeer`. The script
/// prints `PORT <n>` first and exits when this process is gone; `stop()` (or deinit) terminates it.
///
/// `@unchecked Sendable`: `process` is only terminated, by the one test that owns it.
final class PythonPeer: @unchecked Sendable {
    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    static func start(_ script: String, arguments: [String] = []) async throws -> PythonPeer {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let venv = repository + "/.venv/bin/python"
        let python = ProcessInfo.processInfo.environment["TANDEM_PYTHON"]
            ?? (FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, repository + "/Tests/peers/" + script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = await firstLine(from: output.fileHandleForReading)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).split(separator: " ").first ?? "") else {
            process.terminate()
            process.waitUntilExit()
            throw PythonPeerError(message: "peer \(script) failed to start: \(text)")
        }
        return PythonPeer(port: port, process: process)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct PythonPeerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
