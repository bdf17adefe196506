import Foundation
import TandemCore

/// Writes a ``PushPresentation`` as the `messages.presentation` column holds it, by hand: the shape its
/// synthesized `Codable` conformance reads back (the same keys and value encodings; every non-optional field
/// present, as the decoder requires; nil optionals left out), at a fraction of `JSONEncoder`'s cost — it ran
/// on the group-commit writer's thread for every message that carries a presentation (each myMSP
/// notification, for its msgno).
///
/// A presentation with a ``PushPresentation/sound`` (rare; its dictionary form holds a `Double`) is encoded
/// by `JSONEncoder` whole.
///
/// Guarantee (tested): `JSONDecoder().decode(PushPresentation.self, from: write(p)) == p` for every
/// presentation, and the text means the same JSON as `JSONEncoder`'s. Not guaranteed: the same bytes as
/// `JSONEncoder` (member order, `/` unescaped), which nothing relies on. Shared by the backends (package access).
package enum PresentationWriter {
    package static func write(_ presentation: PushPresentation) throws(ColumnCodingError) -> String {
        guard presentation.sound == nil else {
            do {
                return String(decoding: try JSONEncoder().encode(presentation), as: UTF8.self)
            } catch {
                throw ColumnCodingError(message: "\(error)")
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(256)
        var object = ObjectWriter()
        object.string("title", presentation.title, to: &out)
        object.string("subtitle", presentation.subtitle, to: &out)
        object.string("body", presentation.body, to: &out)
        object.string("titleLocKey", presentation.titleLocKey, to: &out)
        object.strings("titleLocArgs", presentation.titleLocArgs, to: &out)
        object.string("subtitleLocKey", presentation.subtitleLocKey, to: &out)
        object.strings("subtitleLocArgs", presentation.subtitleLocArgs, to: &out)
        object.string("bodyLocKey", presentation.bodyLocKey, to: &out)
        object.strings("bodyLocArgs", presentation.bodyLocArgs, to: &out)
        object.string("launchImage", presentation.launchImage, to: &out)
        object.string("summaryArg", presentation.summaryArg, to: &out)
        object.integer("summaryArgCount", presentation.summaryArgCount.map(Int64.init), to: &out)
        object.integer("badge", presentation.badge.map(Int64.init), to: &out)
        object.string("threadID", presentation.threadID, to: &out)
        object.string("category", presentation.category, to: &out)
        object.string("targetContentID", presentation.targetContentID, to: &out)
        object.bool("contentAvailable", presentation.contentAvailable, to: &out)
        object.bool("mutableContent", presentation.mutableContent, to: &out)
        object.key("customData", to: &out)
        out.append(UInt8(ascii: "["))
        for (index, member) in presentation.customData.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            // JSONMember's own encoding: the value as one string holding its compact JSON text.
            out.append(literal: "{\"key\":")
            JSONText.appendString(member.key, to: &out)
            out.append(literal: ",\"value\":")
            JSONText.appendString(member.value.compactText, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        object.key("android", to: &out)
        writeAndroid(presentation.android, to: &out)
        object.string("apnsCollapseID", presentation.apnsCollapseID, to: &out)
        object.duration("apnsTimeToLive", presentation.apnsTimeToLive, to: &out)
        if let bwmi = presentation.bwmi {
            object.key("bwmi", to: &out)
            writeBWMI(bwmi, to: &out)
        }
        object.bool("dataOnly", presentation.dataOnly, to: &out)
        object.close(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func writeAndroid(_ android: AndroidPresentation, to out: inout [UInt8]) {
        var object = ObjectWriter()
        object.string("tag", android.tag, to: &out)
        object.string("clickAction", android.clickAction, to: &out)
        object.string("ticker", android.ticker, to: &out)
        object.bool("sticky", android.sticky, to: &out)
        object.integer("eventTime", android.eventTime?.milliseconds, to: &out)
        object.bool("localOnly", android.localOnly, to: &out)
        object.string("notificationPriority", android.notificationPriority?.rawValue, to: &out)
        object.string("collapseKey", android.collapseKey, to: &out)
        object.duration("ttl", android.ttl, to: &out)
        object.string("restrictedPackageName", android.restrictedPackageName, to: &out)
        object.string("priority", android.priority?.rawValue, to: &out)
        object.close(to: &out)
    }

    /// The synthesized encoding of an enum with associated values: `{"case":{labels…}}`.
    private static func writeBWMI(_ bwmi: BWMIPush, to out: inout [UInt8]) {
        var object = ObjectWriter()
        switch bwmi {
        case .managed(let bid, let sentAt):
            object.key("managed", to: &out)
            var fields = ObjectWriter()
            fields.string("bid", bid, to: &out)
            fields.integer("sentAt", sentAt, to: &out)
            fields.close(to: &out)
        case .fireAndForget(let bid):
            object.key("fireAndForget", to: &out)
            var fields = ObjectWriter()
            fields.string("bid", bid, to: &out)
            fields.close(to: &out)
        case .badgeOnly:
            object.key("badgeOnly", to: &out)
            out.append(literal: "{}")
        }
        object.close(to: &out)
    }

    /// One JSON object being written: its `{`, a comma before each member after the first, its `}`.
    private struct ObjectWriter {
        private var members = 0

        mutating func key(_ name: StaticString, to out: inout [UInt8]) {
            out.append(UInt8(ascii: members == 0 ? "{" : ","))
            members += 1
            out.append(UInt8(ascii: "\""))
            out.append(literal: name)
            out.append(literal: "\":")
        }

        func close(to out: inout [UInt8]) {
            if members == 0 { out.append(UInt8(ascii: "{")) }
            out.append(UInt8(ascii: "}"))
        }

        mutating func string(_ name: StaticString, _ value: String?, to out: inout [UInt8]) {
            guard let value else { return }
            key(name, to: &out)
            JSONText.appendString(value, to: &out)
        }

        mutating func strings(_ name: StaticString, _ values: [String], to out: inout [UInt8]) {
            key(name, to: &out)
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(value, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }

        mutating func integer(_ name: StaticString, _ value: Int64?, to out: inout [UInt8]) {
            guard let value else { return }
            key(name, to: &out)
            out.append(contentsOf: String(value).utf8)
        }

        mutating func bool(_ name: StaticString, _ value: Bool?, to out: inout [UInt8]) {
            guard let value else { return }
            key(name, to: &out)
            out.append(literal: value ? "true" : "false")
        }

        /// `Duration`'s own encoding: `[high, low]`, the two halves of its attoseconds as a 128-bit integer.
        mutating func duration(_ name: StaticString, _ value: Duration?, to out: inout [UInt8]) {
            guard let value else { return }
            key(name, to: &out)
            let (seconds, attoseconds) = value.components
            let total = Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
            out.append(UInt8(ascii: "["))
            out.append(contentsOf: String(Int64(truncatingIfNeeded: total >> 64)).utf8)
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: String(UInt64(truncatingIfNeeded: total)).utf8)
            out.append(UInt8(ascii: "]"))
        }
    }
}
