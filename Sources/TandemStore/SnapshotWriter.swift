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

    /// Room reserved per delivery for its snapshot (a one-device push's is ~620 bytes).
    static let typicalLength = 1_000

    /// `delivery`'s snapshot on its own.
    func write(_ delivery: Delivery) throws(StoreError) -> String {
        var out = ""
        out.reserveCapacity(Self.typicalLength)
        try write(delivery, to: &out)
        return out
    }

    /// Appends `delivery`'s snapshot to `out`, in place: no temporaries from `+`, no interpolation.
    func write(_ delivery: Delivery, to out: inout String) throws(StoreError) {
        out += "{\"devices\":{"
        var first = true
        for (device, progress) in delivery.devices {
            if !first { out += "," }
            first = false
            JSONText.appendString(device.text, to: &out)
            out += ":{\"accepted\":"
            out += Self.text(progress.accepted)
            out += ",\"acknowledged\":"
            out += Self.text(progress.acknowledged)
            out += ",\"read\":"
            out += Self.text(progress.read)
            if let rejection = progress.rejection { Self.appendField("rejection", rejection.rawValue, to: &out) }
            out += "}"
        }
        out += "}"
        if let plan = delivery.plan { try append(plan, to: &out) }
        if let policy = delivery.routePolicy {
            out += ",\"policy\":"
            out += try cached(policy)
        }
        out += ",\"pushTerminated\":"
        out += Self.text(delivery.pushTerminated)
        if let reason = delivery.rejectReason { Self.appendField("rejectReason", reason.rawValue, to: &out) }
        if let resolution = delivery.resolution { Self.appendField("resolution", resolution.rawValue, to: &out) }
        if let cause = delivery.smsCause { Self.appendField("smsCause", cause.rawValue, to: &out) }
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
        out += ",\"smsRequested\":"
        out += Self.text(delivery.smsRequested)
        out += ",\"smsValidity\":"
        out += try cached(delivery.smsValidity)
        Self.appendField("state", delivery.state.rawValue, to: &out)
        Self.appendField("status", delivery.status.wireName, to: &out)
        out += ",\"timers\":{"
        first = true
        for (kind, deadline) in delivery.timers {
            if !first { out += "," }
            first = false
            out += "\""
            out += kind.rawValue
            out += "\":"
            out += String(deadline.milliseconds)
        }
        out += "}}"
    }

    /// The plan differs per delivery (its targets), so it is written by hand; its policy is cached.
    private func append(_ plan: PushPlan, to out: inout String) throws(StoreError) {
        out += ",\"plan\":{\"policy\":"
        out += try cached(plan.policy)
        out += ",\"smsAllowed\":"
        out += Self.text(plan.smsAllowed)
        out += ",\"targets\":["
        for (index, target) in plan.targets.enumerated() {
            if index > 0 { out += "," }
            out += "{\"deviceID\":\""
            out += target.deviceID.text
            out += "\",\"platform\":\""
            out += target.platform.rawValue
            out += "\",\"token\":"
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

    private static func text(_ value: Bool) -> String { value ? "true" : "false" }

    /// `,"name":"value"` for a value that needs no escaping (raw values and wire names of Tandem's own enums).
    private static func appendField(_ name: String, _ value: String, to out: inout String) {
        out += ",\""
        out += name
        out += "\":\""
        out += value
        out += "\""
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
