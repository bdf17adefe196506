import Foundation
import Synchronization
import Testing
import TandemCore
@testable import TandemProviders

/// Binding: authentication against smpp.twisted3's SMSC (Tests/peers/smpp_twisted_smsc.py), back-off and
/// retries, and what submits do while no bind is up.
@Suite("SMPP binding", .serialized, .timeLimit(.minutes(1)))
struct SMPPBindTests {
    @Test("a wrong password: the bind fails naming ESME_RINVPASWD and is retried with back-off")
    func wrongPassword() async throws {
        let peer = try await RecordingPeer("smpp_twisted_smsc.py", arguments: ["--system-id", "tandem", "--password", "right"])
        defer { peer.stop() }
        let lines = LogLines()
        let client = try SMPPClient(settings: testSettings(port: peer.port) {
            $0.password = "wrong"
            $0.maximumQueueWait = .milliseconds(200)
        }, logger: lines.logger)
        client.start()
        let retried = await eventually(timeout: .seconds(10)) {
            peer.records.filter { $0.bind == "tandem" && $0.ok == false }.count >= 2 && client.status.bindAttempts >= 2
        }
        #expect(retried)
        let status = client.status
        #expect(status.lastBindError == .refused(.invalidPassword))
        #expect(status.lastBindError?.description == "bind_transceiver refused: ESME_RINVPASWD (0x0000000E)")
        #expect(status.boundBinds == 0 && status.bindsSucceeded == 0)
        #expect(!peer.records.contains { $0.ok == true })
        #expect(lines.all.contains { $0.contains("\"level\":\"error\"") && $0.contains("ESME_RINVPASWD") })
        #expect(!lines.all.contains { $0.contains("wrong") }, "the password is never logged")

        let result = await client.submit(smsRequest(body: "never sent"))
        #expect(result.rejection?.contains("no SMPP bind") == true)
        await client.shutdown()
    }

    @Test("the right password binds, submits, and unbinds with unbind_resp at shutdown")
    func rightPassword() async throws {
        let peer = try await RecordingPeer("smpp_twisted_smsc.py", arguments: ["--system-id", "tandem", "--password", "right"])
        defer { peer.stop() }
        let client = try SMPPClient(settings: testSettings(port: peer.port) { $0.password = "right" })
        client.start()
        let first = await client.submit(smsRequest(from: "Acme", body: "hi"))
        #expect(first.references == ["tw-1"])
        let long = await client.submit(smsRequest(body: String(repeating: "ж", count: 71)))
        #expect(long.references == ["tw-2", "tw-3"])
        let submitted = peer.records.compactMap(\.submit)
        #expect(submitted.first == asciiHex("hi"))
        try #require(submitted.count == 3)
        let reference = String(submitted[1].dropFirst(6).prefix(2))
        #expect(submitted[1].hasPrefix("050003\(reference)0201") && submitted[1].count == 2 * (6 + 134))
        #expect(submitted[2] == "050003\(reference)0202" + "0436043604360436")
        #expect(client.status.boundBinds == 1 && client.status.bindAttempts == 1)
        await client.shutdown()
        #expect(client.status.unbindsAcknowledged == 1)
        #expect(client.status.boundBinds == 0)
    }

    @Test("nobody listening: unreachable is recorded, submits wait at most maximumQueueWait, cancellation rejects")
    func unreachable() async throws {
        let socket = try BoundSocket() // bound, not listening: connections are refused
        let client = try SMPPClient(settings: testSettings(port: socket.port) { $0.maximumQueueWait = .milliseconds(150) })
        client.start()
        let result = await client.submit(smsRequest(body: "nowhere to go"))
        #expect(result.rejection == "no SMPP bind with room to submit within the allowed wait")
        let retried = await eventually { client.status.bindAttempts >= 2 }
        #expect(retried)
        guard case .unreachable(let reason)? = client.status.lastBindError else {
            Issue.record("lastBindError is \(String(describing: client.status.lastBindError))")
            return
        }
        #expect(reason.contains("refused"))
        await client.shutdown()

        let patient = try SMPPClient(settings: testSettings(port: socket.port) { $0.maximumQueueWait = .seconds(60) })
        patient.start()
        let waiting = Task { await patient.submit(smsRequest(body: "cancel me")) }
        let attempted = await eventually { patient.status.bindAttempts >= 1 }
        #expect(attempted)
        waiting.cancel()
        // Cancelled while queued ("cancelled") or, if the task had not reached the queue yet, before it.
        #expect(await waiting.value.rejection?.hasPrefix("cancelled") == true)
        await patient.shutdown()
    }

    @Test("settings are checked: lengths SMPP cannot carry and impossible values are refused by name")
    func settings() {
        let cases: [(String, (inout SMPPClient.Settings) -> Void)] = [
            ("systemID", { $0.systemID = "a-system-id-of-16" }),
            ("password", { $0.password = "ninechars" }),
            ("systemType", { $0.systemType = "thirteen-char" }),
            ("port", { $0.port = 0 }),
            ("window", { $0.window = 0 }),
            ("binds", { $0.binds = 0 }),
            ("submitsPerSecond", { $0.submitsPerSecond = 0 }),
            ("responseTimeout", { $0.responseTimeout = .zero }),
        ]
        for (field, adjust) in cases {
            #expect {
                try SMPPClient(settings: testSettings(port: 2_775, adjust))
            } throws: { error in
                guard case .invalidSettings(let problem) = error as? SMPPClientError else { return false }
                return problem.hasPrefix(field)
            }
        }
        #expect(throws: Never.self) { try SMPPClient(settings: testSettings(port: 2_775)) }
    }
}
