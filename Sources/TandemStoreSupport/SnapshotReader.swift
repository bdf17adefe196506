import TandemCore

/// Reads a delivery's snapshot in the shape ``SnapshotWriter`` writes it, straight from its UTF-8 bytes: the fast
/// path of recovery, which reads every in-flight snapshot at start-up (`JSONDecoder` took ~30 µs a snapshot, most of
/// it in generic containers and metadata look-ups; this reads one in a few microseconds).
///
/// It knows every key of the writer (in any order, with flags spelled out or left out) and policies named by
/// number. Anything else — a policy spelled out (a snapshot written before its policy's row committed), a key it
/// does not know, an escape it does not handle, a value out of range — makes it answer nil, and the caller decodes
/// that snapshot with `JSONDecoder` as before; so it never decides differently from `Delivery.init(from:)`, only
/// faster. Not a general JSON parser.
package struct SnapshotReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let policy: (Int64) -> Policy?

    /// Reads `snapshot`; nil when it is not in the fast path's shape (see above). `policy` resolves policy numbers.
    package static func read(_ snapshot: String, policy: @escaping (Int64) -> Policy?) -> Delivery? {
        var text = snapshot
        return text.withUTF8 { bytes in
            var reader = SnapshotReader(bytes: bytes, policy: policy)
            return reader.delivery()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, policy: @escaping (Int64) -> Policy?) {
        self.bytes = bytes
        self.policy = policy
    }

    // MARK: The delivery

    private mutating func delivery() -> Delivery? {
        var state: Delivery.State?, status: DeliveryStatus?, resolution: Resolution?, rejectReason: RejectReason?
        var plan: PushPlan?, routePolicy: Policy?, devices = DeviceProgressTable(), timers = TimerDeadlines()
        var smsRequested = false, smsCause: SMSCause?, sms: SMSSubmission?, smsPartsDelivered: [String]?
        var pushTerminated = false, smsValidity: Duration?, smsReportWait = Delivery.defaultSMSReportWait
        let complete = object { reader, key in
            switch key {
            case "devices": return reader.devices(into: &devices)
            case "plan": plan = reader.plan(); return plan != nil
            case "policy": routePolicy = reader.policyReference(); return routePolicy != nil
            case "pushTerminated": return reader.bool(&pushTerminated)
            case "rejectReason": rejectReason = reader.string().flatMap(RejectReason.init(rawValue:)); return rejectReason != nil
            case "resolution": resolution = reader.string().flatMap(Resolution.init(rawValue:)); return resolution != nil
            case "smsCause": smsCause = reader.string().flatMap(SMSCause.init(rawValue:)); return smsCause != nil
            case "sms": sms = reader.submission(); return sms != nil
            case "smsPartsDelivered": smsPartsDelivered = reader.strings(); return smsPartsDelivered != nil
            case "smsRequested": return reader.bool(&smsRequested)
            case "smsValidity": smsValidity = reader.duration(); return smsValidity != nil
            case "smsReportWait":
                guard let wait = reader.duration() else { return false }
                smsReportWait = wait
                return true
            case "state": state = reader.string().flatMap(Delivery.State.init(rawValue:)); return state != nil
            case "status": status = reader.string().flatMap(DeliveryStatus.init(rawValue:)); return status != nil
            case "timers": return reader.timers(into: &timers)
            default: return false
            }
        }
        skipSpaces()
        guard complete, index == bytes.count, let state, let status, let smsValidity else { return nil }
        return Delivery(restoringState: state, status: status, resolution: resolution, rejectReason: rejectReason, plan: plan,
                        routePolicy: routePolicy, devices: devices, timers: timers, smsRequested: smsRequested,
                        smsCause: smsCause, sms: sms, smsPartsDelivered: smsPartsDelivered, pushTerminated: pushTerminated,
                        smsValidity: smsValidity, smsReportWait: smsReportWait)
    }

    private mutating func devices(into table: inout DeviceProgressTable) -> Bool {
        object { reader, key in
            guard let guid = GUID(key.text) else { return false }
            var progress = Delivery.DeviceProgress()
            let read = reader.object { reader, flag in
                switch flag {
                case "accepted": return reader.bool(&progress.accepted)
                case "acknowledged": return reader.bool(&progress.acknowledged)
                case "read": return reader.bool(&progress.read)
                case "rejection":
                    if reader.null() { return true }
                    progress.rejection = reader.string().flatMap(PushRejection.init(rawValue:))
                    return progress.rejection != nil
                default: return false
                }
            }
            table[DeviceID(guid)] = progress
            return read
        }
    }

    private mutating func plan() -> PushPlan? {
        var targets: [PushTarget]?, policy: Policy?, smsAllowed: Bool?
        let read = object { reader, key in
            switch key {
            case "policy": policy = reader.policyReference(); return policy != nil
            case "smsAllowed":
                var allowed = false
                guard reader.bool(&allowed) else { return false }
                smsAllowed = allowed
                return true
            case "targets": targets = reader.targets(); return targets != nil
            default: return false
            }
        }
        guard read, let targets, let policy, let smsAllowed else { return nil }
        return PushPlan(targets: targets, policy: policy, smsAllowed: smsAllowed)
    }

    private mutating func targets() -> [PushTarget]? {
        array { reader in
            var device: DeviceID?, platform: Platform?, token: PushToken?, sandbox: Bool?, topic: String?
            let read = reader.object { reader, key in
                switch key {
                case "deviceID": device = reader.string().flatMap(GUID.init).map(DeviceID.init); return device != nil
                case "platform": platform = reader.string().flatMap(Platform.init(rawValue:)); return platform != nil
                case "token": token = reader.string().flatMap(PushToken.init); return token != nil
                case "apnsSandbox":
                    var flag = false
                    guard reader.bool(&flag) else { return false }
                    sandbox = flag
                    return true
                case "apnsTopic": topic = reader.string(); return topic != nil
                default: return false
                }
            }
            guard read, let device, let platform, let token else { return nil }
            return PushTarget(deviceID: device, platform: platform, token: token, apnsSandbox: sandbox, apnsTopic: topic)
        }
    }

    /// A policy named by its number; a policy spelled out is not the fast path.
    private mutating func policyReference() -> Policy? {
        integer().flatMap(policy)
    }

    private mutating func submission() -> SMSSubmission? {
        var provider: String?, references: [String]?
        let read = object { reader, key in
            switch key {
            case "provider": provider = reader.string(); return provider != nil
            case "references": references = reader.strings(); return references != nil
            default: return false
            }
        }
        guard read, let provider, let references, !references.isEmpty else { return nil }
        return SMSSubmission(provider: provider, references: references)
    }

    private mutating func timers(into timers: inout TimerDeadlines) -> Bool {
        object { reader, key in
            guard let kind = TimerKind(rawValue: key.text), let milliseconds = reader.integer() else { return false }
            timers[kind] = Timestamp(milliseconds: milliseconds)
            return true
        }
    }

    /// `Duration`'s own encoding: `[high, low]`, the two halves of its attoseconds as a 128-bit integer.
    private mutating func duration() -> Duration? {
        guard consume(UInt8(ascii: "[")), let high = integer(), consume(UInt8(ascii: ",")), let low = unsigned(),
              consume(UInt8(ascii: "]")) else { return nil }
        return Duration(attoseconds: Int128(high) << 64 | Int128(low))
    }

    // MARK: JSON pieces

    /// An object's key as its bytes in the snapshot (no escapes), compared without making a `String`.
    struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        static func ~= (name: StaticString, key: Key) -> Bool {
            name.utf8CodeUnitCount == key.bytes.count
                && name.withUTF8Buffer { expected in expected.elementsEqual(key.bytes) }
        }

        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// A key: a string without escapes (every key the writer writes is one); nil for one with escapes.
    private mutating func key() -> Key? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return Key(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            case UInt8(ascii: "\\"), 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// Reads `{ "key": value, … }`, handing each key to `member`, which reads its value; false on any mismatch.
    private mutating func object(_ member: (inout SnapshotReader, Key) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = key(), consume(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    private mutating func array<Element>(_ element: (inout SnapshotReader) -> Element?) -> [Element]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        if consume(UInt8(ascii: "]")) { return elements }
        repeat {
            guard let next = element(&self) else { return nil }
            elements.append(next)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? elements : nil
    }

    private mutating func strings() -> [String]? {
        array { $0.string() }
    }

    /// A string; its escapes `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` are read, `\u` is left to the slow path.
    private mutating func string() -> String? {
        let mark = index
        if let plain = key() { return plain.text }
        index = mark
        guard consume(UInt8(ascii: "\"")) else { return nil }
        return escapedString()
    }

    private mutating func escapedString() -> String? {
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                out.append(byte)
            }
        }
        return nil
    }

    /// `true` or `false` into `value`.
    private mutating func bool(_ value: inout Bool) -> Bool {
        skipSpaces()
        if matches("true") {
            value = true
            return true
        }
        if matches("false") {
            value = false
            return true
        }
        return false
    }

    private mutating func null() -> Bool {
        skipSpaces()
        return matches("null")
    }

    /// An integer that fits `Int64` (no fraction or exponent).
    private mutating func integer() -> Int64? {
        skipSpaces()
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let magnitude = unsignedDigits(), magnitude <= UInt64(Int64.max) + (negative ? 1 : 0) else { return nil }
        return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
    }

    private mutating func unsigned() -> UInt64? {
        skipSpaces()
        return unsignedDigits()
    }

    private mutating func unsignedDigits() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        guard index > start, index == start + 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        // A fraction or exponent is not an integer.
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return value
    }

    private mutating func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let same = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        if same { index += count }
        return same
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpaces() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
