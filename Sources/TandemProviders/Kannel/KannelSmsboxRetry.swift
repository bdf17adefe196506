import Foundation

/// Whether Kannel's smsbox retries a DLR callback that failed — as every callback does while Tandem is down
/// or restarting — read from Kannel's configuration file.
///
/// smsbox calls the dlr-url once unless its `group = smsbox` sets `http-request-retry` (Kannel's default 0: no
/// retry, the DLR is dropped for good and the delivery only ends when its SMS validity and
/// `scheduler.smsReportWait` run out). `http-queue-delay` is the pause between tries (default 10 s), so a
/// restart up to about retries × delay long loses no DLR. Kannel's format: `key = value` lines, `#` comments,
/// groups separated by blank lines, values optionally in double quotes, `include = "path"` for more files.
///
/// Worked example: `http-request-retry = 10` and `http-queue-delay = 30` cover an outage of about 300 s; without
/// `http-request-retry` the check says "not set".
/// Not guaranteed: that this file is the one smsbox runs with, or that the running smsbox was restarted after it
/// changed. Only the `smsbox` groups are looked at.
public struct KannelSmsboxRetry: Sendable, Hashable {
    /// `http-request-retry` as written; nil when absent (Kannel reads 0).
    public var requestRetry: Int?
    /// `http-queue-delay` in seconds as written; nil when absent (Kannel reads 10).
    public var queueDelay: Int?
    /// The group's `smsbox-id`, when it has one (to tell several smsbox groups apart).
    public var smsboxID: String?

    public init(requestRetry: Int? = nil, queueDelay: Int? = nil, smsboxID: String? = nil) {
        self.requestRetry = requestRetry
        self.queueDelay = queueDelay
        self.smsboxID = smsboxID
    }

    /// Kannel's default pause between tries.
    public static let defaultQueueDelay = 10

    /// How long smsbox keeps trying a failed callback, in seconds: 0 when it does not retry.
    public var retryWindow: Int {
        let retries = max(0, requestRetry ?? 0)
        return retries * max(0, queueDelay ?? Self.defaultQueueDelay)
    }

    /// What is wrong for Tandem, or nil when failed DLR callbacks are retried.
    public var problem: String? {
        guard let retries = requestRetry, retries > 0 else {
            return requestRetry == nil
                ? "http-request-retry is not set (Kannel's default 0): a DLR callback made while Tandem is down is dropped for good"
                : "http-request-retry is \(requestRetry ?? 0): a DLR callback made while Tandem is down is dropped for good"
        }
        if queueDelay == 0 { return "http-queue-delay is 0: smsbox retries a failed DLR callback at once, with no pause to outlast a restart" }
        return nil
    }

    /// Reads every `group = smsbox` of a Kannel configuration. `include` names another file (absolute, or
    /// relative to `directory`); `read` returns its text, or nil when it cannot be read (then it is skipped and
    /// named in `unreadable`). Includes nest at most 8 deep.
    public static func parse(_ text: String, directory: String, read: (String) -> String?,
                             unreadable: inout [String]) -> [KannelSmsboxRetry] {
        var groups: [KannelSmsboxRetry] = []
        parse(text, directory: directory, read: read, depth: 0, into: &groups, unreadable: &unreadable)
        return groups
    }

    /// Reads the configuration file at `path` (and what it includes) from disk.
    public static func load(path: String) -> (groups: [KannelSmsboxRetry], unreadable: [String]) {
        var unreadable: [String] = []
        guard let text = readFile(path) else { return ([], [path]) }
        let directory = (path as NSString).deletingLastPathComponent
        let groups = parse(text, directory: directory, read: readFile, unreadable: &unreadable)
        return (groups, unreadable)
    }

    private static func readFile(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static func parse(_ text: String, directory: String, read: (String) -> String?, depth: Int,
                              into groups: inout [KannelSmsboxRetry], unreadable: inout [String]) {
        var current: KannelSmsboxRetry?
        func close() {
            if let group = current { groups.append(group) }
            current = nil
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty {
                close()
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = unquoted(line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            switch key {
            case "group":
                close()
                if value.lowercased() == "smsbox" { current = KannelSmsboxRetry() }
            case "include":
                guard depth < 8 else { continue }
                let path = value.hasPrefix("/") ? value : (directory as NSString).appendingPathComponent(value)
                guard let included = read(path) else {
                    unreadable.append(path)
                    continue
                }
                close()
                parse(included, directory: (path as NSString).deletingLastPathComponent, read: read, depth: depth + 1,
                      into: &groups, unreadable: &unreadable)
            case "http-request-retry":
                current?.requestRetry = Int(value)
            case "http-queue-delay":
                current?.queueDelay = Int(value)
            case "smsbox-id":
                current?.smsboxID = value
            default:
                continue
            }
        }
        close()
    }

    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        return String(value.dropFirst().dropLast())
    }
}
