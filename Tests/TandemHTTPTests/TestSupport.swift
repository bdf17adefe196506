import Foundation
@testable import TandemHTTP
@_exported import TandemTestSupport

/// Runs blocking work (raw sockets) on a dedicated thread so it never blocks
/// the Swift concurrency pool, which async handlers under test need.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// Opens `count` raw keep-alive connections to `port` at once, each driven by `body` on a thread of its own
/// (given the connection's index); returns their results in the order they finished.
func withRawClients<T: Sendable>(_ count: Int, port: UInt16,
                                 _ body: @escaping @Sendable (RawHTTPClient, Int) throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: T.self) { group in
        for connection in 0..<count {
            group.addTask { try await onThread { try body(try RawHTTPClient(port: port), connection) } }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}

/// Starts a server on 127.0.0.1, port 0.
func startServer(
    router: HTTPRouter,
    records: RecordCollector = RecordCollector(),
    configure: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> (server: HTTPServer, port: UInt16) {
    var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, router: router, onRequestCompleted: records.callback)
    let port = try server.start()
    return (server, port)
}

/// A GET request with the headers every test request carries.
func get(_ target: String, method: String = "GET", extraHeaders: String = "") -> String {
    "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extraHeaders)\r\n"
}

/// Deterministic pseudo-random bytes.
func testBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}
