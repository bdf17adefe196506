import Foundation
import Synchronization
import TandemCore

/// Writes a `Delivery`'s snapshot JSON by hand: the shape the synthesized `Codable` conformance reads
/// back (the same keys and value encodings), at a fraction of `JSONEncoder`'s cost on the hot path.
/// The parts that rarely vary between deliveries — the policy, the SMS validity — are encoded once with
/// `JSONEncoder` and reused for the life of the writer (one per store, so across commits; at most
/// `cacheLimit` of each are kept, the cache starts over beyond that — validities the senders choose vary).
///
/// Guarantee (tested): `JSONDecoder().decode(Delivery.self, from: write(d)) == d` for every delivery.
/// Not guaranteed: the same text as `JSONEncoder` (key order, spacing), which nothing relies on.
final class SnapshotWriter: Sendable {
    private struct Cache {
        let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }()
        var policies: [Policy: String] = [:]
        var durations: [Duration: String] = [:]
    }

    static let cacheLimit = 1_024
    private let cache = Mutex(Cache())

    init() {}

    func write(_ delivery: Delivery) throws(StoreError) -> String {
        var out = "{\"devices\":{"
        var first = true
        for (device, progress) in delivery.devices {
            if !first { out += "," }
            first = false
            JSONText.appendString(device.text, to: &out)
            out += ":{\"accepted\":\(progress.accepted),\"acknowledged\":\(progress.acknowledged),\"read\":\(progress.read)"
            if let rejection = progress.rejection { out += ",\"rejection\":\"\(rejection.rawValue)\"" }
            out += "}"
        }
        out += "}"
        if let plan = delivery.plan { try append(plan, to: &out) }
        if let policy = delivery.policy { out += ",\"policy\":" + (try cached(policy)) }
        out += ",\"pushTerminated\":\(delivery.pushTerminated)"
        if let reason = delivery.rejectReason { out += ",\"rejectReason\":\"\(reason.rawValue)\"" }
        if let resolution = delivery.resolution { out += ",\"resolution\":\"\(resolution.rawValue)\"" }
        if let cause = delivery.smsCause { out += ",\"smsCause\":\"\(cause.rawValue)\"" }
        if let sms = delivery.sms {
            out += ",\"sms\":{\"provider\":"
            JSONText.appendString(sms.provider, to: &out)
            out += ",\"references\":"
            Self.appendStrings(sms.references, to: &out)
            out += "}"
        }
        if let delivered = delivery.smsPartsDelivered {
            out += ",\"smsPartsDelivered\":"
            Self.appendStrings(delivered, to: &out)
        }
        out += ",\"smsRequested\":\(delivery.smsRequested)"
        out += ",\"smsValidity\":" + (try cached(delivery.smsValidity))
        out += ",\"state\":\"\(delivery.state.rawValue)\",\"status\":\"\(delivery.status.wireName)\",\"timers\":{"
        first = true
        for (kind, deadline) in delivery.timers {
            if !first { out += "," }
            first = false
            out += "\"\(kind.rawValue)\":\(deadline.milliseconds)"
        }
        return out + "}}"
    }

    /// The plan differs per delivery (its targets), so it is written by hand; its policy is cached.
    private func append(_ plan: PushPlan, to out: inout String) throws(StoreError) {
        out += ",\"plan\":{\"policy\":" + (try cached(plan.policy))
        out += ",\"smsAllowed\":\(plan.smsAllowed),\"targets\":["
        for (index, target) in plan.targets.enumerated() {
            if index > 0 { out += "," }
            out += "{\"deviceID\":\"\(target.deviceID.text)\",\"platform\":\"\(target.platform.rawValue)\",\"token\":"
            JSONText.appendString(target.token.text, to: &out)
            out += "}"
        }
        out += "]}"
    }

    private func cached(_ policy: Policy) throws(StoreError) -> String {
        try cache.withLock { cache throws(StoreError) in try Self.lookUp(policy, in: &cache.policies, encoder: cache.encoder) }
    }

    private func cached(_ duration: Duration) throws(StoreError) -> String {
        try cache.withLock { cache throws(StoreError) in try Self.lookUp(duration, in: &cache.durations, encoder: cache.encoder) }
    }

    /// The cached text for `value`, encoded and kept on a miss (the table starts over at `cacheLimit`).
    private static func lookUp<Value: Encodable & Hashable>(_ value: Value, in table: inout [Value: String],
                                                           encoder: JSONEncoder) throws(StoreError) -> String {
        if let text = table[value] { return text }
        let text: String
        do {
            text = String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw .encoding(column: "snapshot", message: "\(error)")
        }
        if table.count >= cacheLimit { table.removeAll() }
        table[value] = text
        return text
    }

    private static func appendStrings(_ strings: [String], to out: inout String) {
        out += "["
        for (index, string) in strings.enumerated() {
            if index > 0 { out += "," }
            JSONText.appendString(string, to: &out)
        }
        out += "]"
    }
}
