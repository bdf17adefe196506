import TandemCore

extension CMCodec {
    /// `POST /gateway.ashx`: `<MESSAGES><AUTHENTICATION><PRODUCTTOKEN>…</PRODUCTTOKEN></AUTHENTICATION>
    /// <MSG><FROM>…</FROM><TO>…</TO><TO>…</TO><BODY>…</BODY>…</MSG>…</MESSAGES>`.
    ///
    /// Element names match in any casing. `TO` and `ALLOWEDCHANNELS` may repeat (and `ALLOWEDCHANNELS` may
    /// hold a comma-separated list; an empty `<TO/>` is skipped). Text is trimmed except in `BODY`, which is kept exactly (after XML's
    /// line-end normalisation); `<BODY TYPE="plaintext">` sets the body type. An element that holds
    /// elements is read like a JSON object (`<BODY><CONTENT>…</CONTENT><TYPE>…</TYPE></BODY>`).
    /// `RICHCONTENT` is ignored (JSON only), as is CM's `CHANNEL` element. Refused with 202: anything
    /// `MiniXML` refuses (DTDs, entities, bad nesting, non-UTF-8), a root other than `MESSAGES`, stray text
    /// in `MESSAGES`, `AUTHENTICATION` or `MSG`, a control character (C0 other than tab, LF, CR) in any text
    /// outside `BODY`; with 203: no `MSG`, or more than `maximumMessages`. In `BODY` a control character is
    /// the message's 304, as in JSON and GET.
    public static func decodeXML(_ bytes: [UInt8]) throws(CMRequestError) -> CMSubmission {
        let root: MiniXML.Element
        do {
            root = try MiniXML.parse(bytes)
        } catch {
            throw .malformed("malformed XML at byte \(error.offset): \(error.problem)")
        }
        guard ASCIICase.equal(root.name, "MESSAGES") else {
            throw .malformed("the root element must be MESSAGES, got \(root.name)")
        }
        try requireNoControlCharacters(outsideBodyIn: root)
        try requireNoText(in: root)
        let authentications = root.elements.filter { ASCIICase.equal($0.name, "AUTHENTICATION") }
        guard authentications.count <= 1 else { throw .malformed("AUTHENTICATION appears more than once") }
        var productToken: String?
        if let authentication = authentications.first {
            try requireNoText(in: authentication)
            let tokens = authentication.elements.filter { ASCIICase.equal($0.name, "PRODUCTTOKEN") }
            guard tokens.count <= 1 else { throw .malformed("PRODUCTTOKEN appears more than once") }
            productToken = tokens.first?.text
        }
        let messages = root.elements.filter { ASCIICase.equal($0.name, "MSG") }
        guard !messages.isEmpty else { throw .messageArray("the request has no MSG element") }
        try requireAtMostMaximumMessages(messages.count)
        var entries: [CMMessageEntry] = []
        for (index, message) in messages.enumerated() {
            try requireNoText(in: message)
            entries.append(CMMessageDecoder.entry(members: members(of: message), index: index, format: .xml))
        }
        return CMSubmission(format: .xml, productToken: normalisedToken(productToken), messages: entries)
    }

    /// 202 for a control character in the text of `element` or below it, leaving out `BODY` elements (the
    /// message decoder judges bodies, with 304).
    private static func requireNoControlCharacters(outsideBodyIn element: MiniXML.Element) throws(CMRequestError) {
        guard !ASCIICase.equal(element.name, CMField.body.wireName) else { return }
        for child in element.children {
            switch child {
            case .element(let inner):
                try requireNoControlCharacters(outsideBodyIn: inner)
            case .text(let text):
                if let control = CMMessageDecoder.firstControlCharacter(in: text) {
                    throw .malformed("malformed XML: control character \(control) in the text of <\(element.name)>")
                }
            }
        }
    }

    private static func requireNoText(in element: MiniXML.Element) throws(CMRequestError) {
        guard element.text.trimmingASCIISpaces().isEmpty else {
            throw .malformed("unexpected text inside \(element.name)")
        }
    }

    /// The fields of a `MSG`, with repeated `TO` and `ALLOWEDCHANNELS` merged into arrays.
    private static func members(of message: MiniXML.Element) -> [JSONMember] {
        var members: [JSONMember] = []
        var recipients: [JSONValue] = []
        var channels: [JSONValue] = []
        for child in message.elements {
            let value = self.value(of: child)
            if ASCIICase.equal(child.name, CMField.to.wireName) {
                if value != .string("") { recipients.append(value) }
            } else if ASCIICase.equal(child.name, CMField.allowedChannels.wireName) {
                channels.append(value)
            } else {
                members.append(JSONMember(key: child.name, value: value))
            }
        }
        if !recipients.isEmpty { members.append(JSONMember(key: CMField.to.wireName, value: .array(recipients))) }
        if !channels.isEmpty { members.append(JSONMember(key: CMField.allowedChannels.wireName, value: .array(channels))) }
        return members
    }

    /// Text for a leaf (trimmed unless it is `BODY`), an object for an element holding elements.
    private static func value(of element: MiniXML.Element) -> JSONValue {
        let isBody = ASCIICase.equal(element.name, CMField.body.wireName)
        let children = element.elements
        if !children.isEmpty {
            return .object(children.map { JSONMember(key: $0.name, value: value(of: $0)) })
        }
        let text = isBody ? element.text : element.text.trimmingASCIISpaces()
        if isBody, let type = element.attribute("TYPE") {
            return .object([JSONMember(key: "content", value: .string(text)), JSONMember(key: "type", value: .string(type))])
        }
        return .string(text)
    }
}
