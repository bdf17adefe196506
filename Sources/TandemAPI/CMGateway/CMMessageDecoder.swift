import TandemCore

/// Turns the fields of one `msg` into a `CMMessage` or the first reason to refuse it.
///
/// Checks run in a fixed order and the first failure wins: a repeated field (305); `allowedChannels`
/// (305 for a name that is no CM channel, then 402 when it names only channels Tandem does not carry, so
/// that a WhatsApp template with an empty body hears "not supported" rather than "empty body"); `from`
/// (301 / 305); `to` (302 / 305); `body` (304 / 305); the optional fields in declaration order (305); and
/// last the part count (304). A bad recipient number never fails the message: that recipient alone
/// carries 303.
enum CMMessageDecoder {
    static let maximumRecipients = 1_000
    static let partLimits = 1...8

    static func entry(members: [JSONMember], index: Int, format: CMRequestFormat) -> CMMessageEntry {
        let fields = CMFieldValues(members)
        let recipients = rawRecipients(fields[.to])
        var reference: String?
        if case .string(let text)? = fields[.reference] { reference = text }
        let result: Result<CMMessage, CMMessageError>
        do throws(CMMessageError) {
            result = .success(try message(fields, recipients: recipients, format: format))
        } catch {
            result = .failure(error)
        }
        return CMMessageEntry(index: index, recipients: recipients?.map(\.raw) ?? [], reference: reference, result: result)
    }

    private static func message(_ fields: CMFieldValues, recipients raw: [RawRecipient]?,
                                format: CMRequestFormat) throws(CMMessageError) -> CMMessage {
        if let duplicate = fields.duplicate { throw .field("\(duplicate.wireName) appears more than once") }
        let channels = try allowedChannels(fields[.allowedChannels])
        let from = try sender(fields[.from])
        let recipients = try checkedRecipients(raw, value: fields[.to])
        let (body, bodyType) = try body(fields[.body])
        let reference = try text(fields, .reference, maximumLength: 32, allowsControlCharacters: false)
        let grouping = try text(fields, .customGrouping, maximumLength: 100, allowsControlCharacters: true)
        let grouping2 = try text(fields, .customGrouping2, maximumLength: 100, allowsControlCharacters: true)
        let grouping3 = try text(fields, .customGrouping3, maximumLength: 100, allowsControlCharacters: true)
        let minimumParts = try integer(fields, .minimumNumberOfMessageParts, in: partLimits) ?? partLimits.lowerBound
        let maximumParts = try integer(fields, .maximumNumberOfMessageParts, in: partLimits) ?? partLimits.upperBound
        guard minimumParts <= maximumParts else {
            throw .field("minimumNumberOfMessageParts (\(minimumParts)) exceeds maximumNumberOfMessageParts (\(maximumParts))")
        }
        let validity = try validity(fields[.validity])
        let dcs = try integer(fields, .dcs, in: Int.min...Int.max)
        if let dcs, dcs != 0, dcs != 8 { throw .field("dcs must be 0 or 8, got \(dcs)") }
        let appKey = try parsed(fields, .appKey, expected: "a GUID like 00000000-0000-0000-0000-000000000000") { AppKey($0) }
        let messageType = try parsed(fields, .appMessageType, expected: "one of \(AppMessageType.wireNames)") {
            AppMessageType(wireName: $0)
        }
        let richContent = format == .json ? fields[.richContent]?.compactText : nil
        let fallbackFor = try text(fields, .fallbackFor, maximumLength: 64, allowsControlCharacters: false)
        let presentation = format == .json ? try options(fields[.options]) : PushPresentation()
        let segmentation = SMSText.segmentation(of: body, forceUCS2: dcs == 8)
        guard segmentation.parts <= maximumParts else {
            throw CMMessageError(code: .invalidBody, details:
                "body needs \(segmentation.parts) SMS parts; maximumNumberOfMessageParts is \(maximumParts)")
        }
        return CMMessage(from: from, recipients: recipients, body: body, bodyType: bodyType, reference: reference,
                         customGrouping: grouping, customGrouping2: grouping2, customGrouping3: grouping3,
                         minimumParts: minimumParts, maximumParts: maximumParts, validity: validity, dcs: dcs,
                         allowedChannels: channels, appKey: appKey, appMessageType: messageType,
                         richContent: richContent, fallbackFor: fallbackFor, segmentation: segmentation,
                         presentation: presentation)
    }

    // MARK: options

    /// Tandem's extension: SCG's `options` map (``PushPresentation/init(scgOptions:)``); a fault is 305
    /// naming the option key.
    private static func options(_ value: JSONValue?) throws(CMMessageError) -> PushPresentation {
        do {
            return try SCGCodec.options(value)
        } catch {
            throw .field(error.description)
        }
    }

    // MARK: from

    private static func sender(_ value: JSONValue?) throws(CMMessageError) -> CMSender {
        guard let value else { throw CMMessageError(code: .invalidFrom, details: "from is required") }
        guard case .string(let text) = value else { throw .field("from must be a string, got \(value.kindDescription)") }
        guard let sender = CMSender(text) else {
            throw CMMessageError(code: .invalidFrom, details: "from \"\(text)\" " + CMSender.rule)
        }
        return sender
    }

    // MARK: to

    /// One `to` element as sent, and why it cannot be a number when its shape is wrong.
    struct RawRecipient {
        let raw: String
        let problem: String?
    }

    /// The recipients as sent; nil when `to` is absent or of the wrong type.
    private static func rawRecipients(_ value: JSONValue?) -> [RawRecipient]? {
        guard let value else { return nil }
        switch value {
        case .array(let elements): return elements.enumerated().map { rawRecipient($1, position: $0 + 1) }
        case .string, .object: return [rawRecipient(value, position: 1)]
        case .number, .bool, .null: return nil
        }
    }

    /// A plain string, or an object whose `number` is a string.
    private static func rawRecipient(_ value: JSONValue, position: Int) -> RawRecipient {
        switch value {
        case .string(let text):
            return RawRecipient(raw: text, problem: nil)
        case .object(let members):
            let numbers = members.values(named: "number")
            guard numbers.count <= 1 else {
                return RawRecipient(raw: "", problem: "recipient \(position) has more than one number")
            }
            switch numbers.first {
            case .string(let text)?: return RawRecipient(raw: text, problem: nil)
            case .number(let literal)?: return RawRecipient(raw: literal, problem: "recipient \(position): number must be a string")
            case .object?, .array?, .bool?, .null?, nil: return RawRecipient(raw: "", problem: "recipient \(position) has no number")
            }
        case .number(let literal):
            return RawRecipient(raw: literal, problem: "recipient \(position) must be a string or {\"number\": …}")
        case .array, .bool, .null:
            return RawRecipient(raw: "", problem: "recipient \(position) must be a string or {\"number\": …}")
        }
    }

    private static func checkedRecipients(_ raw: [RawRecipient]?, value: JSONValue?) throws(CMMessageError) -> [CMRecipient] {
        guard let value else { throw CMMessageError(code: .invalidTo, details: "to is required") }
        guard let raw else { throw .field("to must be an array of recipients, got \(value.kindDescription)") }
        guard !raw.isEmpty else { throw CMMessageError(code: .invalidTo, details: "to has no recipients") }
        guard raw.count <= maximumRecipients else {
            throw CMMessageError(code: .invalidTo, details: "to has \(raw.count) recipients; at most \(maximumRecipients) are allowed")
        }
        return raw.map { recipient in
            if let problem = recipient.problem {
                return CMRecipient(raw: recipient.raw, result: .failure(CMMessageError(code: .invalidMSISDN, details: problem)))
            }
            guard let msisdn = MSISDN(recipient.raw) else {
                return CMRecipient(raw: recipient.raw, result: .failure(CMMessageError(code: .invalidMSISDN, details:
                    "\"\(recipient.raw)\" is not an international number (00 or +, country code, subscriber number)")))
            }
            return CMRecipient(raw: recipient.raw, result: .success(msisdn))
        }
    }

    // MARK: body

    /// `{"content": …, "type": …}`, or plain text (XML and query forms, and lenient JSON). The same rule for
    /// every form: a C0 control character other than tab, LF and CR → 304.
    private static func body(_ value: JSONValue?) throws(CMMessageError) -> (String, CMBodyType) {
        let (content, type) = try bodyFields(value)
        if let control = firstControlCharacter(in: content) {
            throw CMMessageError(code: .invalidBody, details: "body contains the control character \(control); "
                + "only tab, line feed and carriage return are allowed")
        }
        return (content, type)
    }

    /// The first C0 control character other than tab, LF and CR, written `U+0000`; nil when there is none.
    static func firstControlCharacter(in text: String) -> String? {
        guard let byte = text.utf8.first(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return nil }
        let hex = String(byte, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    private static func bodyFields(_ value: JSONValue?) throws(CMMessageError) -> (String, CMBodyType) {
        switch value {
        case nil:
            throw CMMessageError(code: .invalidBody, details: "body is required")
        case .string(let content)?:
            return (content, .auto)
        case .object(let members)?:
            let contents = members.values(named: "content")
            let types = members.values(named: "type").filter { $0 != .null }
            guard contents.count <= 1, types.count <= 1 else { throw .field("body has a repeated content or type") }
            guard let content = contents.first, content != .null else {
                throw CMMessageError(code: .invalidBody, details: "body.content is required")
            }
            guard case .string(let text) = content else {
                throw .field("body.content must be a string, got \(content.kindDescription)")
            }
            guard !text.isEmpty else { throw CMMessageError(code: .invalidBody, details: "body.content is empty") }
            var bodyType = CMBodyType.auto
            if let type = types.first {
                guard case .string(let name) = type else { throw .field("body.type must be a string, got \(type.kindDescription)") }
                if !name.trimmingASCIISpaces().isEmpty {
                    guard let parsed = CMBodyType(cmText: name) else {
                        throw .field("body.type must be auto or plaintext, got \"\(name)\"")
                    }
                    bodyType = parsed
                }
            }
            return (text, bodyType)
        case let other?:
            throw .field("body must be an object with content, got \(other.kindDescription)")
        }
    }
}
