import Foundation
import Synchronization
import TandemCore

/// Writes a `Delivery`'s snapshot JSON by hand: the shape its `Codable` conformance reads back (the same keys
/// and value encodings, less the flags that are false, an empty timer table and the default `smsReportWait`, which the
/// decoder takes for missing — about a sixth of a one-device push's snapshot), at a fraction of `JSONEncoder`'s cost on the hot path.
/// The parts that rarely vary between deliveries — the policy, the SMS validity — are encoded once with
/// `JSONEncoder` and reused for the life of the writer (one per store, so across commits; at most
/// `cacheLimit` of each are kept, the cache starts over beyond that — validities the senders choose vary).
/// A policy whose `policies` row has committed (its ``PolicyCatalog``) is written as its number; any other is
/// spelled out and reported, for the commit to store its row (migration 11).
///
/// Guarantee (tested): `catalog.decoder().decode(Delivery.self, from: write(d)) == d` for every delivery.
/// Not guaranteed: the same text as `JSONEncoder` (key order, spacing), which nothing relies on.
///
/// Shared by the store backends (package access): SQLite and PostgreSQL store the same snapshot text.
package final class SnapshotWriter: Sendable {
    private struct Cache {
        let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return encoder
        }()
        var policies: [Policy: [UInt8]] = [:]
        var durations: [Duration: [UInt8]] = [:]
    }

    /// A policy a snapshot spelled out, with its text (the `policies.body` to store).
    package struct SpelledOut: Sendable {
        package let policy: Policy
        package let body: [UInt8]
    }

    package static let cacheLimit = 1_024
    private let cache = Mutex(Cache())
    package let catalog: PolicyCatalog

    package init(catalog: PolicyCatalog = PolicyCatalog()) {
        self.catalog = catalog
    }

    /// Room reserved per delivery for its snapshot (a one-device push's is ~340 bytes, more with long push tokens).
    package static let typicalLength = 1_000

    /// `delivery`'s snapshot on its own.
    package func write(_ delivery: Delivery) throws(SnapshotEncodingError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(Self.typicalLength)
        var spelledOut: [SpelledOut] = []
        try write(delivery, to: &out, spelledOut: &spelledOut)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `delivery`'s snapshot to `out` as UTF-8, in place: bytes, not a `String` (whose every append
    /// checks and updates its count and flags — about half this function's time when it appended to one).
    /// A policy without a number in the catalog is spelled out and added to `spelledOut` (once).
    package func write(_ delivery: Delivery, to out: inout [UInt8], spelledOut: inout [SpelledOut]) throws(SnapshotEncodingError) {
        out.append(literal: "{\"devices\":{")
        var first = true
        for (device, progress) in delivery.devices {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            Self.appendString(device.text, to: &out)
            out.append(literal: ":{")
            var firstFlag = true
            Self.appendFlag("accepted", progress.accepted, first: &firstFlag, to: &out)
            Self.appendFlag("acknowledged", progress.acknowledged, first: &firstFlag, to: &out)
            Self.appendFlag("read", progress.read, first: &firstFlag, to: &out)
            if let rejection = progress.rejection {
                if !firstFlag { out.append(UInt8(ascii: ",")) }
                out.append(literal: "\"rejection\":\"")
                out.append(contentsOf: rejection.rawValue.utf8)
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        if let plan = delivery.plan { try append(plan, to: &out, spelledOut: &spelledOut) }
        if let policy = delivery.routePolicy {
            out.append(literal: ",\"policy\":")
            try append(policy, to: &out, spelledOut: &spelledOut)
        }
        if delivery.pushTerminated { out.append(literal: ",\"pushTerminated\":true") }
        if let reason = delivery.rejectReason { Self.appendField("rejectReason", reason.rawValue, to: &out) }
        if let resolution = delivery.resolution { Self.appendField("resolution", resolution.rawValue, to: &out) }
        if let cause = delivery.smsCause { Self.appendField("smsCause", cause.rawValue, to: &out) }
        if let sms = delivery.sms {
            out.append(literal: ",\"sms\":{\"provider\":")
            Self.appendString(sms.provider, to: &out)
            out.append(literal: ",\"references\":")
            Self.appendStrings(sms.references, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        if let delivered = delivery.smsPartsDelivered {
            out.append(literal: ",\"smsPartsDelivered\":")
            Self.appendStrings(delivered, to: &out)
        }
        if delivery.smsRequested { out.append(literal: ",\"smsRequested\":true") }
        if delivery.smsReportWait != Delivery.defaultSMSReportWait {
            out.append(literal: ",\"smsReportWait\":")
            out.append(contentsOf: try cached(delivery.smsReportWait))
        }
        out.append(literal: ",\"smsValidity\":")
        out.append(contentsOf: try cached(delivery.smsValidity))
        Self.appendField("state", delivery.state.rawValue, to: &out)
        Self.appendField("status", delivery.status.wireName, to: &out)
        if !delivery.timers.isEmpty {
            out.append(literal: ",\"timers\":{")
            first = true
            for (kind, deadline) in delivery.timers {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: kind.rawValue.utf8)
                out.append(literal: "\":")
                out.append(contentsOf: String(deadline.milliseconds).utf8)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The plan differs per delivery (its targets), so it is written by hand.
    private func append(_ plan: PushPlan, to out: inout [UInt8], spelledOut: inout [SpelledOut]) throws(SnapshotEncodingError) {
        out.append(literal: ",\"plan\":{\"policy\":")
        try append(plan.policy, to: &out, spelledOut: &spelledOut)
        out.append(literal: ",\"smsAllowed\":")
        out.append(literal: Self.text(plan.smsAllowed))
        out.append(literal: ",\"targets\":[")
        for (index, target) in plan.targets.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(literal: "{\"deviceID\":\"")
            out.append(contentsOf: target.deviceID.text.utf8)
            out.append(literal: "\",\"platform\":\"")
            out.append(contentsOf: target.platform.rawValue.utf8)
            out.append(literal: "\",\"token\":")
            Self.appendString(target.token.text, to: &out)
            if let sandbox = target.apnsSandbox {  // only when the registration has its own (Codable's keys)
                out.append(literal: ",\"apnsSandbox\":")
                out.append(literal: Self.text(sandbox))
            }
            if let topic = target.apnsTopic {
                out.append(literal: ",\"apnsTopic\":")
                Self.appendString(topic, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(literal: "]}")
    }

    /// `policy`'s number when its row has committed, else its cached text (then noted in `spelledOut`).
    private func append(_ policy: Policy, to out: inout [UInt8], spelledOut: inout [SpelledOut]) throws(SnapshotEncodingError) {
        if let number = catalog.number(of: policy) {
            out.append(contentsOf: String(number).utf8)
            return
        }
        let body = try cached(policy)
        out.append(contentsOf: body)
        if !spelledOut.contains(where: { $0.policy == policy }) {
            spelledOut.append(SpelledOut(policy: policy, body: body))
        }
    }

    private func cached(_ policy: Policy) throws(SnapshotEncodingError) -> [UInt8] {
        try cache.withLock { cache throws(SnapshotEncodingError) in try Self.lookUp(policy, in: &cache.policies, encoder: cache.encoder) }
    }

    private func cached(_ duration: Duration) throws(SnapshotEncodingError) -> [UInt8] {
        try cache.withLock { cache throws(SnapshotEncodingError) in try Self.lookUp(duration, in: &cache.durations, encoder: cache.encoder) }
    }

    /// The cached text for `value`, encoded and kept on a miss (the table starts over at `cacheLimit`).
    private static func lookUp<Value: Encodable & Hashable>(_ value: Value, in table: inout [Value: [UInt8]],
                                                           encoder: JSONEncoder) throws(SnapshotEncodingError) -> [UInt8] {
        if let text = table[value] { return text }
        let text: [UInt8]
        do {
            text = Array(try encoder.encode(value))
        } catch {
            throw SnapshotEncodingError(message: "\(error)")
        }
        if table.count >= cacheLimit { table.removeAll() }
        table[value] = text
        return text
    }

    private static func text(_ value: Bool) -> StaticString { value ? "true" : "false" }

    /// `"name":true` (after a comma unless it is the object's first member); nothing for false, which the
    /// decoder takes for a missing flag.
    private static func appendFlag(_ name: StaticString, _ value: Bool, first: inout Bool, to out: inout [UInt8]) {
        guard value else { return }
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        out.append(literal: name)
        out.append(literal: "\":true")
    }

    /// `,"name":"value"` for a value that needs no escaping (raw values and wire names of Tandem's own enums).
    private static func appendField(_ name: StaticString, _ value: String, to out: inout [UInt8]) {
        out.append(literal: ",\"")
        out.append(literal: name)
        out.append(literal: "\":\"")
        out.append(contentsOf: value.utf8)
        out.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string literal; escaped as ``JSONText`` escapes (the rare text that needs it goes through it).
    private static func appendString(_ text: String, to out: inout [UInt8]) {
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out.append(contentsOf: JSONText.quoted(text).utf8)
        } else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func appendStrings(_ strings: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(string, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}

extension [UInt8] {
    /// Appends a literal's UTF-8 in one copy.
    package mutating func append(literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }
}

/// A part of a snapshot (a policy, a duration) that `JSONEncoder` could not encode; each backend reports it in its
/// own error type.
package struct SnapshotEncodingError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
