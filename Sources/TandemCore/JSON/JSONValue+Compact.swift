extension JSONValue {
    /// Compact JSON text: no insignificant whitespace, members in their original order, numbers as sent,
    /// strings re-escaped by `JSONText` (`"`, `\`, control characters; everything else as UTF-8).
    public var compactText: String {
        var out = ""
        appendCompact(to: &out)
        return out
    }

    public func appendCompact(to out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { out += "," }
                JSONText.appendString(member.key, to: &out)
                out += ":"
                member.value.appendCompact(to: &out)
            }
            out += "}"
        case .array(let elements):
            out += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { out += "," }
                element.appendCompact(to: &out)
            }
            out += "]"
        case .string(let text):
            JSONText.appendString(text, to: &out)
        case .number(let literal):
            out += literal
        case .bool(let value):
            out += value ? "true" : "false"
        case .null:
            out += "null"
        }
    }
}
