import Foundation
import TandemTestSupport
import XCTest

/// A peer started for one test and stopped by it (or, if the test process dies, by the
/// script noticing its parent is gone).
final class PeerProcess: Sendable {
    let port: Int
    /// Every port the peer printed (some listen on more than one).
    let ports: [Int]
    private let process: ChildProcess

    private init(port: Int, ports: [Int], process: ChildProcess) {
        self.port = port
        self.ports = ports
        self.process = process
    }

    /// Starts the Python HTTP/1.1 server, optionally with TLS (ALPN `http/1.1` only).
    static func pythonHTTP(in directory: TemporaryDirectory, tls: (cert: String, key: String)? = nil) async throws -> PeerProcess {
        try requireExecutable("python3")
        var arguments = ["http"]
        if let tls { arguments += ["--tls", tls.cert, tls.key] }
        return try await start(in: directory, arguments: arguments)
    }

    /// Starts `nghttpd` on 127.0.0.1, TLS with `certificate` unless nil (then `--no-tls`).
    static func nghttpd(in directory: TemporaryDirectory, htdocs: String,
                        certificate: TestCertificate?, extraArguments: [String] = []) async throws -> PeerProcess {
        try requireExecutable("python3")
        let nghttpd = try requireExecutable("nghttpd", hint: "install Debian package nghttp2-server")
        var arguments = ["supervise", nghttpd, "--address=127.0.0.1", "--htdocs=\(htdocs)"] + extraArguments
        if let certificate {
            arguments += ["0", certificate.keyPath, certificate.certPath]
        } else {
            arguments += ["--no-tls", "0"]
        }
        return try await start(in: directory, arguments: arguments)
    }

    /// Runs `Tests/peers/<script>` with the venv's Python (`TANDEM_PYTHON`, set by `make unit`; else the
    /// repository's `.venv`, else `python3`). The script must print `PORT <n> [<m> …]` (or `ERROR <text>`)
    /// as its first stdout line and nothing else on stdout afterwards (nobody reads it: a full pipe would
    /// block the peer), and exit when its parent process is gone.
    static func pythonPeer(_ script: String, arguments: [String] = []) async throws -> PeerProcess {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let environment = ProcessInfo.processInfo.environment
        let venv = repository + "/.venv/bin/python"
        let python = environment["TANDEM_PYTHON"] ?? (FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3")
        return try await launch([python, repository + "/Tests/peers/" + script] + arguments, name: script)
    }

    private static func start(in directory: TemporaryDirectory, arguments: [String]) async throws -> PeerProcess {
        let script = directory.path + "/peer.py"
        if !FileManager.default.fileExists(atPath: script) {
            try PeerScript.source.write(toFile: script, atomically: true, encoding: .utf8)
        }
        return try await launch(["python3", script] + arguments, name: arguments.prefix(2).joined(separator: " "))
    }

    private static func launch(_ command: [String], name: String) async throws -> PeerProcess {
        let process = try ChildProcess(command, output: .pipe)
        let line = await process.firstLine()
        let ports = line.hasPrefix("PORT ") ? line.dropFirst(5).split(separator: " ").compactMap { Int($0) } : []
        guard let port = ports.first else {
            process.terminate()
            throw PeerError(message: "peer \(name) failed to start: \(line)")
        }
        return PeerProcess(port: port, ports: ports, process: process)
    }

    /// SIGTERM, then SIGKILL if the peer is still there after 5 s.
    func stop() {
        process.terminate(grace: .seconds(5))
    }

    deinit {
        stop()
    }

    /// The executable's path, or an `XCTSkip` saying it is genuinely unavailable.
    @discardableResult
    static func requireExecutable(_ name: String, hint: String = "") throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
            return directory + "/" + name
        }
        throw XCTSkip("\(name) is not installed\(hint.isEmpty ? "" : " (\(hint))"); skipping")
    }
}

struct PeerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A fresh directory under the system temp dir, removed on deinit.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/tandem-httpclient-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func write(_ contents: [UInt8], to name: String) throws -> String {
        let file = path + "/" + name
        try Data(contents).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// A self-signed P-256 certificate for `localhost` and 127.0.0.1, made by the openssl CLI.
struct TestCertificate: Sendable {
    let certPath: String
    let keyPath: String

    static func make(in directory: TemporaryDirectory, name: String) throws -> TestCertificate {
        let openssl = try PeerProcess.requireExecutable("openssl")
        let certificate = TestCertificate(certPath: "\(directory.path)/\(name)-cert.pem",
                                          keyPath: "\(directory.path)/\(name)-key.pem")
        let process = try ChildProcess([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                        "-nodes", "-days", "1", "-subj", "/CN=localhost",
                                        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                        "-keyout", certificate.keyPath, "-out", certificate.certPath],
                                       output: .null, errors: .null)
        let status = process.wait()
        guard status == .exited(0) else {
            throw PeerError(message: "openssl req ended with \(status)")
        }
        return certificate
    }
}
