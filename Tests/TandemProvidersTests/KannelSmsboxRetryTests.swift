import Foundation
import Testing
@testable import TandemProviders

/// Reading whether Kannel's smsbox retries a failed DLR callback (`http-request-retry`, `http-queue-delay`)
/// from its configuration, as `tandem serve` does at start-up when `providers.sms.kannel.smsboxConfig` is set.
@Suite("Kannel smsbox retry settings")
struct KannelSmsboxRetryTests {
    func parse(_ text: String, files: [String: String] = [:]) -> (groups: [KannelSmsboxRetry], unreadable: [String]) {
        var unreadable: [String] = []
        let groups = KannelSmsboxRetry.parse(text, directory: "/etc/kannel", read: { files[$0] }, unreadable: &unreadable)
        return (groups, unreadable)
    }

    @Test("an smsbox group without http-request-retry does not retry: the problem names the setting")
    func missing() throws {
        let (groups, _) = parse("group = core\nadmin-port = 13000\n\ngroup = smsbox\nbearerbox-host = localhost\nsendsms-port = 13013\n")
        let group = try #require(groups.first)
        #expect(groups.count == 1)
        #expect(group == KannelSmsboxRetry())
        #expect(group.retryWindow == 0)
        #expect(group.problem?.hasPrefix("http-request-retry is not set") == true)
    }

    @Test("retries with a pause are fine and cover retries × delay seconds; without a delay Kannel's 10 s counts")
    func retrying() throws {
        let (groups, _) = parse("""
            # comment
            group = smsbox
            bearerbox-host = "127.0.0.1"
            http-request-retry = 10
            http-queue-delay = "30"

            group = smsbox
            smsbox-id = "second"
            http-request-retry = 3
            """)
        #expect(groups == [KannelSmsboxRetry(requestRetry: 10, queueDelay: 30),
                           KannelSmsboxRetry(requestRetry: 3, smsboxID: "second")])
        #expect(groups.map(\.problem) == [nil, nil])
        #expect(groups.map(\.retryWindow) == [300, 30])
    }

    @Test("a retry count of 0 or a delay of 0 is a problem", arguments: [
        ("http-request-retry = 0\nhttp-queue-delay = 5", "http-request-retry is 0"),
        ("http-request-retry = 5\nhttp-queue-delay = 0", "http-queue-delay is 0"),
    ])
    func zero(settings: String, problem: String) throws {
        let group = try #require(parse("group = smsbox\n\(settings)\n").groups.first)
        #expect(group.problem?.hasPrefix(problem) == true, "\(group.problem ?? "none")")
    }

    @Test("settings outside an smsbox group, or after the blank line that ends it, do not count")
    func otherGroups() {
        let (groups, _) = parse("""
            group = smsbox
            bearerbox-host = localhost

            http-request-retry = 5
            group = sms-service
            http-request-retry = 5
            """)
        #expect(groups == [KannelSmsboxRetry()])
    }

    @Test("included files are read (relative to the including file); one that cannot be read is named")
    func includes() {
        let files = ["/etc/kannel/smsbox.conf": "group = smsbox\nhttp-request-retry = 4\nhttp-queue-delay = 15\n",
                     "/opt/other.conf": "group = smsbox\nsmsbox-id = b\n"]
        let (groups, unreadable) = parse("""
            group = core
            admin-port = 13000

            include = "smsbox.conf"
            include = "/opt/other.conf"
            include = "missing.conf"
            """, files: files)
        #expect(groups == [KannelSmsboxRetry(requestRetry: 4, queueDelay: 15), KannelSmsboxRetry(smsboxID: "b")])
        #expect(unreadable == ["/etc/kannel/missing.conf"])
    }

    @Test("an include that includes itself stops after a few levels")
    func includeLoop() {
        let (groups, _) = parse("include = loop.conf\n", files: ["/etc/kannel/loop.conf": "group = smsbox\n\ninclude = loop.conf\n"])
        #expect(groups.count == 8)
    }

    @Test("from disk: a file that cannot be read is reported, not guessed at")
    func fromDisk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smsbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let main = directory.appendingPathComponent("kannel.conf")
        try "include = \"smsbox.conf\"\n".write(to: main, atomically: true, encoding: .utf8)
        try "group = smsbox\nhttp-request-retry = 2\n".write(to: directory.appendingPathComponent("smsbox.conf"), atomically: true, encoding: .utf8)
        let loaded = KannelSmsboxRetry.load(path: main.path)
        #expect(loaded.groups == [KannelSmsboxRetry(requestRetry: 2)] && loaded.unreadable == [])
        let missing = KannelSmsboxRetry.load(path: directory.appendingPathComponent("none.conf").path)
        #expect(missing.groups == [] && missing.unreadable == [directory.appendingPathComponent("none.conf").path])
    }

    @Test("Debian's sample configuration: its smsbox group does not retry",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/kannel/examples/kannel.conf")))
    func debianSample() throws {
        let loaded = KannelSmsboxRetry.load(path: "/usr/share/doc/kannel/examples/kannel.conf")
        let group = try #require(loaded.groups.first)
        #expect(loaded.groups.count == 1)
        #expect(group.problem?.hasPrefix("http-request-retry is not set") == true)
    }
}
