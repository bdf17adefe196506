extension PushPresentation {
    /// The presentation an SCG messaging request's `options` map asks for, as Syniverse documents it
    /// ("Support for additional attributes to pass application data to APN"):
    ///
    /// - `push:alert:title|subtitle|launch-image|summary-arg` → the alert's texts; `push:alert:summary-arg-count`
    ///   and `push:badge` → whole numbers (`"4"` or `4`);
    /// - `push:alert:title-loc-key|subtitle-loc-key|loc-key` → the localisation keys, each clearing its
    ///   literal (a title-loc-key drops `push:alert:title`; a loc-key hides the message text);
    /// - `push:alert:title-loc-arg:<i>|subtitle-loc-arg:<i>|loc-arg:<i>` → arrays ordered by index; gaps
    ///   are allowed (indexes 0, 5, 1 give the values of 0, 1, 5 in that order);
    /// - `push:sound` → a sound name; any `push:soundx:name|critical|volume` makes the sound the dictionary
    ///   form instead: its name is `soundx:name`, else `push:sound`, else `default`; critical `false` and
    ///   volume 1.0 when not given;
    /// - `push:thread-id`, `push:category`, `push:target-content-id` → `aps` as they are;
    /// - `push:appdata:n|s|o:<name>` → custom data as a number, a string or a parsed JSON object;
    ///   `push:appdata:n|s:<name>:<i>` → an array ordered by index (from 1; gaps allowed), one type only;
    /// - `push:alert:tag|click_action|ticker|sticky|event_time|local_only|notification_priority` → FCM's
    ///   Android fields (APNs ignores them); `event_time` is epoch milliseconds.
    ///
    /// Keys that do not start with `push:` are not push presentation and are ignored (the same map carries
    /// other options of the request). Every other `push:` key is an error, as is a value of the wrong kind.
    /// Indexes are decimal without leading zeros, so two keys never name the same position.
    ///
    /// Keys are examined in sorted order, so the error for a map with several faults is always the same.
    /// Text options take a number or a boolean as its JSON text.
    public init(scgOptions options: [String: SCGOptionValue]) throws(SCGOptionsError) {
        self.init()
        var builder = SCGOptionsBuilder()
        for key in options.keys.sorted() {
            guard let value = options[key] else { continue }
            try builder.add(key: key, value: value)
        }
        try builder.finish(into: &self)
    }
}

/// Collects the options one key at a time; ``finish(into:)`` orders the arrays and applies the clearing rules.
private struct SCGOptionsBuilder {
    var presentation = PushPresentation()
    var titleLocArgs: [(Int, String)] = []
    var subtitleLocArgs: [(Int, String)] = []
    var bodyLocArgs: [(Int, String)] = []
    var plainSound: String?
    var soundName: String?
    var critical: Bool?
    var volume: Double?
    var appData: [String: AppData] = [:]

    enum AppData {
        case scalar(key: String, JSONValue)
        case array(key: String, kind: Character, [(Int, JSONValue)])
    }

    mutating func add(key: String, value: SCGOptionValue) throws(SCGOptionsError) {
        let parts = key.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == "push" else { return }
        switch parts.count {
        case 2:
            switch parts[1] {
            case "badge": presentation.badge = try Self.count(value, key)
            case "sound": plainSound = value.text
            case "thread-id": presentation.threadID = value.text
            case "category": presentation.category = value.text
            case "target-content-id": presentation.targetContentID = value.text
            default: throw .unknownKey(key)
            }
        case 3 where parts[1] == "soundx":
            switch parts[2] {
            case "name": soundName = value.text
            case "critical": critical = try Self.boolean(value, key)
            case "volume":
                guard let literal = value.numberLiteral, let level = Double(literal), (0...1).contains(level) else {
                    throw .invalidValue(key: key, expected: .volume)
                }
                volume = level
            default: throw .unknownKey(key)
            }
        case 3 where parts[1] == "alert":
            try addAlert(parts[2], key: key, value: value)
        case 4 where parts[1] == "alert":
            let index = try Self.index(parts[3], key)
            switch parts[2] {
            case "title-loc-arg": titleLocArgs.append((index, value.text))
            case "subtitle-loc-arg": subtitleLocArgs.append((index, value.text))
            case "loc-arg": bodyLocArgs.append((index, value.text))
            default: throw .unknownKey(key)
            }
        case 4 where parts[1] == "appdata", 5 where parts[1] == "appdata":
            try addAppData(kind: parts[2], name: parts[3], index: parts.count == 5 ? parts[4] : nil, key: key, value: value)
        default:
            throw .unknownKey(key)
        }
    }

    private mutating func addAlert(_ field: String, key: String, value: SCGOptionValue) throws(SCGOptionsError) {
        switch field {
        case "title": presentation.title = value.text
        case "subtitle": presentation.subtitle = value.text
        case "launch-image": presentation.launchImage = value.text
        case "title-loc-key": presentation.titleLocKey = value.text
        case "subtitle-loc-key": presentation.subtitleLocKey = value.text
        case "loc-key": presentation.bodyLocKey = value.text
        case "summary-arg": presentation.summaryArg = value.text
        case "summary-arg-count": presentation.summaryArgCount = try Self.count(value, key)
        case "tag": presentation.android.tag = value.text
        case "click_action": presentation.android.clickAction = value.text
        case "ticker": presentation.android.ticker = value.text
        case "sticky": presentation.android.sticky = try Self.boolean(value, key)
        case "local_only": presentation.android.localOnly = try Self.boolean(value, key)
        case "event_time":
            guard let millis = value.integer else { throw .invalidValue(key: key, expected: .epochMilliseconds) }
            presentation.android.eventTime = Timestamp(milliseconds: millis)
        case "notification_priority":
            guard case .string(let text) = value, let priority = AndroidNotificationPriority(rawValue: text) else {
                throw .invalidValue(key: key, expected: .notificationPriority)
            }
            presentation.android.notificationPriority = priority
        default:
            throw .unknownKey(key)
        }
    }

    private mutating func addAppData(kind: String, name: String, index: String?, key: String,
                                     value: SCGOptionValue) throws(SCGOptionsError) {
        guard !name.isEmpty else { throw .unknownKey(key) }
        guard name != "aps" else { throw .reservedAppData(key: key) }
        let element: JSONValue
        switch kind {
        case "n":
            guard let literal = value.numberLiteral else { throw .invalidValue(key: key, expected: .number) }
            element = .number(literal)
        case "s":
            element = .string(value.text)
        case "o" where index == nil:
            guard case .string(let text) = value else { throw .notAJSONObject(key: key, problem: "not a string of JSON") }
            switch JSONParser.parse(Array(text.utf8)) {
            case .success(let parsed):
                guard case .object = parsed else { throw .notAJSONObject(key: key, problem: "\(parsed.kindDescription), not an object") }
                element = parsed
            case .failure(let error):
                throw .notAJSONObject(key: key, problem: "\(error.problem) at offset \(error.offset)")
            }
        default:
            throw .unknownKey(key)
        }
        guard let index else {
            guard appData[name] == nil else { throw .conflictingAppData(key: key) }
            appData[name] = .scalar(key: key, element)
            return
        }
        let position = try Self.index(index, key)
        guard position >= 1 else { throw .unknownKey(key) }
        let type = Character(kind)
        switch appData[name] {
        case nil:
            appData[name] = .array(key: key, kind: type, [(position, element)])
        case .array(let first, let existing, var elements):
            guard existing == type else { throw .mixedArray(key: key) }
            elements.append((position, element))
            appData[name] = .array(key: first, kind: type, elements)
        case .scalar:
            throw .conflictingAppData(key: key)
        }
    }

    mutating func finish(into result: inout PushPresentation) throws(SCGOptionsError) {
        presentation.titleLocArgs = Self.ordered(titleLocArgs)
        presentation.subtitleLocArgs = Self.ordered(subtitleLocArgs)
        presentation.bodyLocArgs = Self.ordered(bodyLocArgs)
        if presentation.titleLocKey != nil { presentation.title = nil }
        if presentation.subtitleLocKey != nil { presentation.subtitle = nil }
        if presentation.bodyLocKey != nil { presentation.body = nil }
        if soundName != nil || critical != nil || volume != nil {
            presentation.sound = .dictionary(name: soundName ?? plainSound ?? "default", critical: critical ?? false,
                                             volume: volume ?? 1.0)
        } else if let plainSound {
            presentation.sound = .named(plainSound)
        }
        presentation.customData = appData.keys.sorted().compactMap { name in
            switch appData[name] {
            case .scalar(_, let value): JSONMember(key: name, value: value)
            case .array(_, _, let elements): JSONMember(key: name, value: .array(Self.ordered(elements)))
            case nil: nil
            }
        }
        result = presentation
    }

    private static func ordered<Value>(_ pairs: [(Int, Value)]) -> [Value] {
        pairs.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// A decimal index without sign or leading zeros (`0`, `7`, `12`; not `07`, `-1`, `+1`).
    private static func index(_ text: String, _ key: String) throws(SCGOptionsError) -> Int {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (0x30...0x39).contains($0) }),
              digits.count == 1 || digits.first != UInt8(ascii: "0"), let value = Int(text) else {
            throw .unknownKey(key)
        }
        return value
    }

    private static func count(_ value: SCGOptionValue, _ key: String) throws(SCGOptionsError) -> Int {
        guard let number = value.integer, number >= 0, number <= Int64(Int32.max) else {
            throw .invalidValue(key: key, expected: .nonNegativeInteger)
        }
        return Int(number)
    }

    private static func boolean(_ value: SCGOptionValue, _ key: String) throws(SCGOptionsError) -> Bool {
        guard let flag = value.boolean else { throw .invalidValue(key: key, expected: .boolean) }
        return flag
    }
}
