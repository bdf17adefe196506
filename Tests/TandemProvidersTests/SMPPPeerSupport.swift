import Foundation
import Synchronization
import TandemCore
@testable import TandemProviders

/// One line of a peer's record file (`Tests/peers/smpp_smsc.py`, `smpp_twisted_smsc.py`); every field
/// optional, since the lines come in several shapes.
struct PeerRecord: Decodable, Sendable {
    struct Fields: Decodable, Sendable, Hashable {
        let sourceAddr: String
        let sourceAddrTon: Int
        let sourceAddrNpi: Int
        let destinationAddr: String
        let destAddrTon: Int
        let destAddrNpi: Int
        let esmClass: Int
        let dataCoding: Int
        let registeredDelivery: Int
        let validityPeriod: String
        let shortMessage: String
    }

    // The wire tap.
    let tap: String?
    let conn: Int?
    let command: String?
    let status: Int?
    let seq: Int?
    let inflight: Int?
    let fields: Fields?
    let messageId: String?
    // The smpp34 server.
    let smsc: String?
    let text: String?
    let result: String?
    let form: String?
    // The smpp.twisted server.
    let bind: String?
    let ok: Bool?
    let submit: String?
}

/// A peer started with `--record <file>` in a fresh directory, whose records the test reads back.
final class RecordingPeer: Sendable {
    let process: PeerProcess
    let directory: TemporaryDirectory
    let recordPath: String

    var port: Int { process.port }

    init(_ script: String, arguments: [String]) async throws {
        directory = try TemporaryDirectory()
        recordPath = directory.path + "/record.jsonl"
        process = try await PeerProcess.pythonPeer(script, arguments: ["--record", recordPath] + arguments)
    }

    /// Every complete line recorded so far.
    var records: [PeerRecord] {
        guard let data = FileManager.default.contents(atPath: recordPath) else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(PeerRecord.self, from: Data($0)) }
    }

    /// What the client wrote, as the tap saw it.
    var submits: [PeerRecord] { records.filter { $0.tap == "c2s" && $0.command == "submit_sm" } }

    func stop() { process.stop() }
}

/// Collects delivery reports as the client hands them over.
final class ReportInbox: Sendable {
    private let reports = Mutex<[SMSDeliveryReport]>([])

    var handler: SMSReportHandler {
        { [self] batch in self.reports.withLock { $0 += batch } }
    }

    var all: [SMSDeliveryReport] { reports.withLock { $0 } }
}

/// Settings for a test SMSC on 127.0.0.1 with millisecond back-offs.
func testSettings(port: Int, _ adjust: (inout SMPPClient.Settings) -> Void = { _ in }) -> SMPPClient.Settings {
    var settings = SMPPClient.Settings(host: "127.0.0.1", port: port, systemID: "tandem", password: "secret")
    settings.reconnectBackoff = .milliseconds(20) ... .milliseconds(200)
    settings.throttleBackoff = .milliseconds(5) ... .milliseconds(40)
    settings.responseTimeout = .seconds(5)
    settings.connectTimeout = .seconds(2)
    settings.shutdownGrace = .seconds(2)
    settings.maximumQueueWait = .seconds(10) // a lost part fails the test instead of hanging it
    adjust(&settings)
    return settings
}

extension SMSSubmitResult {
    var references: [String]? {
        if case .submitted(let references) = self { return references }
        return nil
    }

    var rejection: String? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }
}

/// Submits every request concurrently; results in request order.
func submitAll(_ client: SMPPClient, _ requests: [SMSRequest]) async -> [SMSSubmitResult] {
    await withTaskGroup(of: (Int, SMSSubmitResult).self) { group in
        for (index, request) in requests.enumerated() {
            group.addTask { (index, await client.submit(request)) }
        }
        var results = [SMSSubmitResult?](repeating: nil, count: requests.count)
        for await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}

/// Hex of a GSM text sent unpacked (what `short_message` holds for a single-part ASCII text).
func asciiHex(_ text: String) -> String {
    text.utf8.map { String(format: "%02x", $0) }.joined()
}
