import TandemCore
import TandemEngine

/// A forwarded call or answer that could not be written or read: what is wrong, and where (a path into the
/// document, `$.events[2].event.device`).
public struct ForwardedCallCodecError: Error, Hashable, CustomStringConvertible {
    public let problem: String

    public init(_ problem: String) {
        self.problem = problem
    }

    public var description: String { problem }
}

/// The wire form of a ``ForwardedCall`` and its ``ForwardedAnswer`` between cluster nodes
/// (`POST /internal/cluster/forward`, ``ClusterForwardEndpoint``): compact JSON in UTF-8.
///
/// Calls:
/// - `{"kind":"events","events":[{"key":12,"event":{"kind":"readReported","device":"<guid>"}},…]}`
/// - `{"kind":"receipt","key":12,"events":[{"kind":"deliveryAcknowledged","device":"<guid>"},…],
///   "sender":{"app":"<app key>","recipient":"<DeliveryRecipient.storedText>"},
///   "acknowledgement":{"delivery":12,"device":"<guid>","at":<unix ms>}}` (`acknowledgement` absent when none)
/// - `{"kind":"manualFallback","key":12}`
///
/// Events: `{"kind":"pushAccepted"|"deliveryAcknowledged"|"readReported","device":"<guid>"}`,
/// `{"kind":"pushRejected","device":"<guid>","rejection":"tokenDead"|"transient"|"other"}`,
/// `{"kind":"smsSubmitted","provider":"smpp","references":["a","b"]}` (at least one reference),
/// `{"kind":"smsReportReceived","outcome":"delivered"|"failed"|"expired"}`,
/// `{"kind":"smsPartReported","reference":"abc","outcome":…}`, and with no other field
/// `manualFallbackRequested`, `supersededBySMS`, `cancelledBySender`, `expired`. `routed` and `timerFired` are a
/// node's own events and never travel: encoding one throws, and neither kind is read.
///
/// Answers:
/// - `{"kind":"outcomes","outcomes":["applied"|"loggedAfterFinal",…]}`
/// - `{"kind":"receipt","outcome":"recorded"|"notTheRecipient"|"notInFlight",
///   "acknowledgement":"acknowledged"|"alreadyAcknowledged"|"unknown","liveCount":3}` (the last two absent when nil)
/// - `{"kind":"manualFallback","availability":"<ManualFallbackAvailability raw value>"}`
///
/// Reading is strict and never traps: a document that is not well-formed JSON, a member that is missing, of another
/// type, repeated or not named here, an unknown kind or value, a malformed GUID or recipient, a key (delivery) that is
/// not a whole number in 1…Int64.max, a negative time or live count, or more than ``maximumEvents`` events or
/// outcomes is refused with a ``ForwardedCallCodecError`` naming the problem. Writing refuses the same things, so
/// what one node writes the other reads.
public enum ForwardedCallCodec {
    /// The most events one call carries (and outcomes one answer does).
    public static let maximumEvents = 10_000

    // MARK: - Calls

    public static func encode(_ call: ForwardedCall) throws -> [UInt8] {
        var out = ""
        switch call {
        case .events(let events):
            try checkCount(events.count, "$.events")
            out += "{\"kind\":\"events\",\"events\":["
            for (index, (key, event)) in events.enumerated() {
                if index > 0 { out += "," }
                out += "{\"key\":"
                try appendKey(key, "$.events[\(index)].key", to: &out)
                out += ",\"event\":"
                try appendEvent(event, "$.events[\(index)].event", to: &out)
                out += "}"
            }
            out += "]}"
        case .receipt(let key, let events, let sender, let acknowledgement):
            try checkCount(events.count, "$.events")
            out += "{\"kind\":\"receipt\",\"key\":"
            try appendKey(key, "$.key", to: &out)
            out += ",\"events\":["
            for (index, event) in events.enumerated() {
                if index > 0 { out += "," }
                try appendEvent(event, "$.events[\(index)]", to: &out)
            }
            out += "],\"sender\":{\"app\":"
            JSONText.appendString(sender.app.guid.text, to: &out)
            out += ",\"recipient\":"
            JSONText.appendString(sender.recipient.storedText, to: &out)
            out += "}"
            if let acknowledgement {
                out += ",\"acknowledgement\":{\"delivery\":"
                try appendKey(acknowledgement.delivery, "$.acknowledgement.delivery", to: &out)
                out += ",\"device\":"
                JSONText.appendString(acknowledgement.device.guid.text, to: &out)
                guard acknowledgement.at.milliseconds >= 0 else {
                    throw ForwardedCallCodecError("$.acknowledgement.at: a time before 1970 (\(acknowledgement.at.milliseconds))")
                }
                out += ",\"at\":\(acknowledgement.at.milliseconds)}"
            }
            out += "}"
        case .manualFallback(let key):
            out += "{\"kind\":\"manualFallback\",\"key\":"
            try appendKey(key, "$.key", to: &out)
            out += "}"
        }
        return Array(out.utf8)
    }

    public static func decodeCall(_ bytes: [UInt8]) throws -> ForwardedCall {
        let root = try Fields(parse(bytes), at: "$")
        let call: ForwardedCall
        switch try root.string("kind") {
        case "events":
            let elements = try root.array("events")
            try checkCount(elements.count, "$.events")
            var events: [(DeliveryKey, DeliveryEvent)] = []
            events.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                let entry = try Fields(element, at: "$.events[\(index)]")
                let key = try entry.key("key")
                let event = try decodeEvent(entry.value("event"), at: "$.events[\(index)].event")
                try entry.finish()
                events.append((key, event))
            }
            call = .events(events)
        case "receipt":
            let key = try root.key("key")
            let elements = try root.array("events")
            try checkCount(elements.count, "$.events")
            let events = try elements.enumerated().map { index, element in try decodeEvent(element, at: "$.events[\(index)]") }
            let senderFields = try Fields(root.value("sender"), at: "$.sender")
            let app = try AppKey(senderFields.guid("app"))
            let recipientText = try senderFields.string("recipient")
            guard let recipient = DeliveryRecipient(storedText: recipientText) else {
                throw ForwardedCallCodecError("$.sender.recipient: neither an E.164 number nor device:<guid>: \(JSONText.quoted(recipientText))")
            }
            try senderFields.finish()
            var acknowledgement: ForwardedAcknowledgement?
            if let value = root.optionalValue("acknowledgement") {
                let fields = try Fields(value, at: "$.acknowledgement")
                acknowledgement = ForwardedAcknowledgement(delivery: try fields.key("delivery"), device: try DeviceID(fields.guid("device")),
                                                           at: Timestamp(milliseconds: try fields.integer("at", minimum: 0)))
                try fields.finish()
            }
            call = .receipt(key: key, events: events, sender: Scheduler.ReceiptSender(app: app, recipient: recipient),
                            acknowledgement: acknowledgement)
        case "manualFallback":
            call = .manualFallback(try root.key("key"))
        case let kind:
            throw ForwardedCallCodecError("$.kind: unknown call kind \(JSONText.quoted(kind)) (events, receipt or manualFallback)")
        }
        try root.finish()
        return call
    }

    // MARK: - Answers

    public static func encode(_ answer: ForwardedAnswer) -> [UInt8] {
        var out = ""
        switch answer {
        case .outcomes(let outcomes):
            out += "{\"kind\":\"outcomes\",\"outcomes\":["
            out += outcomes.map { "\"\(name(of: $0))\"" }.joined(separator: ",")
            out += "]}"
        case .receipt(let outcome, let acknowledgement, let liveCount):
            out += "{\"kind\":\"receipt\",\"outcome\":\"\(name(of: outcome))\""
            if let acknowledgement { out += ",\"acknowledgement\":\"\(name(of: acknowledgement))\"" }
            if let liveCount { out += ",\"liveCount\":\(liveCount)" }
            out += "}"
        case .manualFallback(let availability):
            out += "{\"kind\":\"manualFallback\",\"availability\":\"\(availability.rawValue)\"}"
        }
        return Array(out.utf8)
    }

    public static func decodeAnswer(_ bytes: [UInt8]) throws -> ForwardedAnswer {
        let root = try Fields(parse(bytes), at: "$")
        let answer: ForwardedAnswer
        switch try root.string("kind") {
        case "outcomes":
            let elements = try root.array("outcomes")
            try checkCount(elements.count, "$.outcomes")
            answer = .outcomes(try elements.enumerated().map { index, element in
                try named(element, at: "$.outcomes[\(index)]", eventOutcomes)
            })
        case "receipt":
            let outcome = try named(root.value("outcome"), at: "$.outcome", receiptOutcomes)
            let acknowledgement = try root.optionalValue("acknowledgement").map { try named($0, at: "$.acknowledgement", acknowledgements) }
            let liveCount = try root.optionalValue("liveCount").map { _ in Int(try root.integer("liveCount", minimum: 0)) }
            answer = .receipt(outcome, acknowledgement: acknowledgement, liveCount: liveCount)
        case "manualFallback":
            let text = try root.string("availability")
            guard let availability = ManualFallbackAvailability(rawValue: text) else {
                throw ForwardedCallCodecError("$.availability: unknown manual fallback availability \(JSONText.quoted(text))")
            }
            answer = .manualFallback(availability)
        case let kind:
            throw ForwardedCallCodecError("$.kind: unknown answer kind \(JSONText.quoted(kind)) (outcomes, receipt or manualFallback)")
        }
        try root.finish()
        return answer
    }

    // MARK: - Events

    private static func appendEvent(_ event: DeliveryEvent, _ path: String, to out: inout String) throws {
        func device(_ kind: String, _ device: DeviceID) {
            out += "{\"kind\":\"\(kind)\",\"device\":"
            JSONText.appendString(device.guid.text, to: &out)
        }
        switch event {
        case .routed:
            throw ForwardedCallCodecError("\(path): a routed event is never forwarded (the owner routes its own deliveries)")
        case .timerFired:
            throw ForwardedCallCodecError("\(path): a timerFired event is never forwarded (timers fire on the owner)")
        case .pushAccepted(let id):
            device("pushAccepted", id)
        case .pushRejected(let id, let rejection):
            device("pushRejected", id)
            out += ",\"rejection\":\"\(rejection.rawValue)\""
        case .deliveryAcknowledged(let id):
            device("deliveryAcknowledged", id)
        case .readReported(let id):
            device("readReported", id)
        case .manualFallbackRequested:
            out += "{\"kind\":\"manualFallbackRequested\""
        case .supersededBySMS:
            out += "{\"kind\":\"supersededBySMS\""
        case .cancelledBySender:
            out += "{\"kind\":\"cancelledBySender\""
        case .smsSubmitted(let submission):
            out += "{\"kind\":\"smsSubmitted\",\"provider\":"
            JSONText.appendString(submission.provider, to: &out)
            out += ",\"references\":["
            for (index, reference) in submission.references.enumerated() {
                if index > 0 { out += "," }
                JSONText.appendString(reference, to: &out)
            }
            out += "]"
        case .smsReportReceived(let outcome):
            out += "{\"kind\":\"smsReportReceived\",\"outcome\":\"\(outcome.rawValue)\""
        case .smsPartReported(let reference, let outcome):
            out += "{\"kind\":\"smsPartReported\",\"reference\":"
            JSONText.appendString(reference, to: &out)
            out += ",\"outcome\":\"\(outcome.rawValue)\""
        case .expired:
            out += "{\"kind\":\"expired\""
        }
        out += "}"
    }

    private static func decodeEvent(_ value: JSONValue, at path: String) throws -> DeliveryEvent {
        let fields = try Fields(value, at: path)
        let event: DeliveryEvent
        switch try fields.string("kind") {
        case "pushAccepted": event = .pushAccepted(try DeviceID(fields.guid("device")))
        case "pushRejected":
            let device = try DeviceID(fields.guid("device"))
            let text = try fields.string("rejection")
            guard let rejection = PushRejection(rawValue: text) else {
                throw ForwardedCallCodecError("\(path).rejection: unknown push rejection \(JSONText.quoted(text))")
            }
            event = .pushRejected(device, rejection)
        case "deliveryAcknowledged": event = .deliveryAcknowledged(try DeviceID(fields.guid("device")))
        case "readReported": event = .readReported(try DeviceID(fields.guid("device")))
        case "manualFallbackRequested": event = .manualFallbackRequested
        case "supersededBySMS": event = .supersededBySMS
        case "cancelledBySender": event = .cancelledBySender
        case "smsSubmitted":
            let provider = try fields.string("provider")
            let elements = try fields.array("references")
            guard !elements.isEmpty else { throw ForwardedCallCodecError("\(path).references: an SMS has at least one part") }
            let references = try elements.enumerated().map { index, element in
                guard case .string(let text) = element else {
                    throw ForwardedCallCodecError("\(path).references[\(index)]: \(element.kindDescription), not a string")
                }
                return text
            }
            event = .smsSubmitted(SMSSubmission(provider: provider, references: references))
        case "smsReportReceived": event = .smsReportReceived(try smsOutcome(fields, at: path))
        case "smsPartReported":
            event = .smsPartReported(reference: try fields.string("reference"), try smsOutcome(fields, at: path))
        case "expired": event = .expired
        case "routed", "timerFired":
            throw ForwardedCallCodecError("\(path).kind: \(JSONText.quoted(try fields.string("kind"))) events are never forwarded")
        case let kind:
            throw ForwardedCallCodecError("\(path).kind: unknown event kind \(JSONText.quoted(kind))")
        }
        try fields.finish()
        return event
    }

    private static func smsOutcome(_ fields: Fields, at path: String) throws -> SMSOutcome {
        let text = try fields.string("outcome")
        guard let outcome = SMSOutcome(rawValue: text) else {
            throw ForwardedCallCodecError("\(path).outcome: unknown SMS outcome \(JSONText.quoted(text))")
        }
        return outcome
    }

    // MARK: - Names

    private static func name(of outcome: Scheduler.EventOutcome) -> String {
        switch outcome {
        case .applied: "applied"
        case .loggedAfterFinal: "loggedAfterFinal"
        }
    }

    private static func name(of outcome: Scheduler.ReceiptOutcome) -> String {
        switch outcome {
        case .recorded: "recorded"
        case .notTheRecipient: "notTheRecipient"
        case .notInFlight: "notInFlight"
        }
    }

    private static func name(of acknowledgement: BWMIAcknowledgement) -> String {
        switch acknowledgement {
        case .acknowledged: "acknowledged"
        case .alreadyAcknowledged: "alreadyAcknowledged"
        case .unknown: "unknown"
        }
    }

    private static let eventOutcomes: [String: Scheduler.EventOutcome] = ["applied": .applied, "loggedAfterFinal": .loggedAfterFinal]
    private static let receiptOutcomes: [String: Scheduler.ReceiptOutcome] =
        ["recorded": .recorded, "notTheRecipient": .notTheRecipient, "notInFlight": .notInFlight]
    private static let acknowledgements: [String: BWMIAcknowledgement] =
        ["acknowledged": .acknowledged, "alreadyAcknowledged": .alreadyAcknowledged, "unknown": .unknown]

    private static func named<T>(_ value: JSONValue, at path: String, _ names: [String: T]) throws -> T {
        guard case .string(let text) = value else { throw ForwardedCallCodecError("\(path): \(value.kindDescription), not a string") }
        guard let found = names[text] else {
            throw ForwardedCallCodecError("\(path): unknown value \(JSONText.quoted(text)) (\(names.keys.sorted().joined(separator: ", ")))")
        }
        return found
    }

    // MARK: - Reading and writing helpers

    private static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        switch JSONParser.parse(bytes) {
        case .success(let value): return value
        case .failure(let error): throw ForwardedCallCodecError("not JSON: \(error.problem) at byte \(error.offset)")
        }
    }

    private static func checkCount(_ count: Int, _ path: String) throws {
        guard count <= maximumEvents else {
            throw ForwardedCallCodecError("\(path): \(count) entries, more than the \(maximumEvents) one call may carry")
        }
    }

    private static func appendKey(_ key: DeliveryKey, _ path: String, to out: inout String) throws {
        guard key.rawValue > 0 else { throw ForwardedCallCodecError("\(path): a delivery key is positive, not \(key.rawValue)") }
        out += String(key.rawValue)
    }

    /// An object's members by name, each read at most once; ``finish()`` refuses any not read.
    private final class Fields {
        let path: String
        private var members: [String: JSONValue] = [:]
        private var unread: Set<String> = []

        init(_ value: JSONValue, at path: String) throws {
            self.path = path
            guard case .object(let list) = value else {
                throw ForwardedCallCodecError("\(path): \(value.kindDescription), not an object")
            }
            for member in list {
                guard members.updateValue(member.value, forKey: member.key) == nil else {
                    throw ForwardedCallCodecError("\(path): \(JSONText.quoted(member.key)) appears twice")
                }
            }
            unread = Set(members.keys)
        }

        func optionalValue(_ name: String) -> JSONValue? {
            unread.remove(name)
            return members[name]
        }

        func value(_ name: String) throws -> JSONValue {
            guard let value = optionalValue(name) else { throw ForwardedCallCodecError("\(path): \(JSONText.quoted(name)) is missing") }
            return value
        }

        func string(_ name: String) throws -> String {
            let value = try value(name)
            guard case .string(let text) = value else {
                throw ForwardedCallCodecError("\(path).\(name): \(value.kindDescription), not a string")
            }
            return text
        }

        func array(_ name: String) throws -> [JSONValue] {
            let value = try value(name)
            guard case .array(let elements) = value else {
                throw ForwardedCallCodecError("\(path).\(name): \(value.kindDescription), not an array")
            }
            return elements
        }

        func integer(_ name: String, minimum: Int64) throws -> Int64 {
            let value = try value(name)
            guard case .number(let literal) = value else {
                throw ForwardedCallCodecError("\(path).\(name): \(value.kindDescription), not a number")
            }
            guard let number = Int64(literal) else {
                throw ForwardedCallCodecError("\(path).\(name): \(literal) is not a whole number in the 64-bit range")
            }
            guard number >= minimum else { throw ForwardedCallCodecError("\(path).\(name): \(literal) is less than \(minimum)") }
            return number
        }

        func key(_ name: String) throws -> DeliveryKey {
            let key = try integer(name, minimum: .min)
            guard key > 0 else { throw ForwardedCallCodecError("\(path).\(name): a delivery key is positive, not \(key)") }
            return DeliveryKey(key)
        }

        func guid(_ name: String) throws -> GUID {
            let text = try string(name)
            guard let guid = GUID(text) else { throw ForwardedCallCodecError("\(path).\(name): not a GUID: \(JSONText.quoted(text))") }
            return guid
        }

        func finish() throws {
            guard unread.isEmpty else {
                throw ForwardedCallCodecError("\(path): unknown member\(unread.count == 1 ? "" : "s") "
                                              + unread.sorted().map(JSONText.quoted).joined(separator: ", "))
            }
        }
    }
}
