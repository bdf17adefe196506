import TandemCore

extension CMMessageDecoder {
    /// Optional text of at most `maximumLength` Unicode scalars; with `allowsControlCharacters` false,
    /// C0/C1 controls and DEL are refused too.
    static func text(_ fields: CMFieldValues, _ field: CMField, maximumLength: Int,
                     allowsControlCharacters: Bool) throws(CMMessageError) -> String? {
        guard let value = fields[field] else { return nil }
        guard case .string(let text) = value else {
            throw .field("\(field.wireName) must be a string, got \(value.kindDescription)")
        }
        let count = text.unicodeScalars.count
        guard count <= maximumLength else {
            throw .field("\(field.wireName) is \(count) characters long; at most \(maximumLength) are allowed")
        }
        if !allowsControlCharacters, text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw .field("\(field.wireName) must not contain control characters")
        }
        return text
    }

    /// An optional whole number, as a JSON number (`8`) or numeric text (`"8"`, `" 8 "`), within `range`.
    static func integer(_ fields: CMFieldValues, _ field: CMField, in range: ClosedRange<Int>) throws(CMMessageError) -> Int? {
        guard let value = fields[field] else { return nil }
        let literal: String
        switch value {
        case .number(let text): literal = text
        case .string(let text): literal = text.trimmingASCIISpaces()
        case .object, .array, .bool, .null: throw .field("\(field.wireName) must be a number, got \(value.kindDescription)")
        }
        guard let number = Int(literal) else { throw .field("\(field.wireName) must be a whole number, got \(literal)") }
        guard range.contains(number) else {
            throw .field("\(field.wireName) must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }

    /// Optional text that `parse` must accept (GUIDs, enum names).
    static func parsed<T>(_ fields: CMFieldValues, _ field: CMField, expected: @autoclosure () -> String,
                          parse: (String) -> T?) throws(CMMessageError) -> T? {
        guard let value = fields[field] else { return nil }
        guard case .string(let text) = value else {
            throw .field("\(field.wireName) must be a string, got \(value.kindDescription)")
        }
        guard let parsed = parse(text) else { throw .field("\(field.wireName) must be \(expected()), got \"\(text)\"") }
        return parsed
    }

    static func validity(_ value: JSONValue?) throws(CMMessageError) -> CMValidity? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw .field("validity must be a string, got \(value.kindDescription)") }
        guard let validity = CMValidity(cmText: text) else {
            throw .field("validity \"\(text)\" must be a date and time with a zone (2025-03-01T12:00:00+01:00) "
                + "or a span like 30m, 2h, 1h30m, 2d")
        }
        return validity
    }

    /// A list of CM channel names (a JSON array, repeated XML elements, comma-separated text).
    ///
    /// `.all` when the list is absent or empty. A name that is no CM channel → 305. Names that are CM
    /// channels Tandem does not carry are dropped when a supported one is named too (the message can still go
    /// that way), and → 402 when they are all there is.
    static func allowedChannels(_ value: JSONValue?) throws(CMMessageError) -> AllowedChannels {
        guard let value else { return .all }
        let items: [JSONValue]
        switch value {
        case .array(let elements): items = elements
        case .string: items = [value]
        case .object, .number, .bool, .null:
            throw .field("allowedChannels must be an array of channel names, got \(value.kindDescription)")
        }
        var supported = Set<Channel>()
        var unsupported: [CMChannelName] = []
        for item in items {
            guard case .string(let text) = item else {
                throw .field("allowedChannels must hold channel names, got \(item.kindDescription)")
            }
            for piece in text.split(separator: ",") {
                let name = String(piece).trimmingASCIISpaces()
                if name.isEmpty { continue }
                guard let channelName = CMChannelName(cmText: name) else {
                    throw .field("allowedChannels: \"\(name)\" is not a channel name")
                }
                if let channel = channelName.channel {
                    supported.insert(channel)
                } else if !unsupported.contains(channelName) {
                    unsupported.append(channelName)
                }
            }
        }
        if !supported.isEmpty { return .only(supported) }
        if unsupported.isEmpty { return .all }
        throw CMMessageError(code: .channelNotSupported, details: "allowedChannels names only channels Tandem does not "
            + "support (\(unsupported.map(\.rawValue).joined(separator: ", "))); supported: SMS, Push")
    }
}
