import TandemCore

/// The response body of `GET /v1.0/messages`.
extension ODataQuery {
    /// `messages` as a JSON array of objects carrying the `$select`ed fields, keys in the order `ID`,
    /// `UpdateID`, `Recipient`, `Sender`, `Body`, `DateTime`, `Status`; compact, no trailing newline.
    ///
    /// Renders what it is given: pass the result of ``apply(to:)`` or of the translated SQL. Per field:
    /// - `UpdateID` is a JSON *string* of digits (`"6509643555"`), as in the spec's example response and
    ///   the `PUT` body apps echo it in;
    /// - `Recipient` is the MSISDN with a `00` prefix (`"0031600000000"`), as the spec shows it;
    /// - `Body` is left out when the message has none, even when selected;
    /// - `DateTime` is UTC with milliseconds in the spec's format, without a zone letter:
    ///   `"2026-11-21T10:15:30.123"` (SDKs may parse it with exactly that pattern).
    ///
    /// Strings escape `"`, `\` and control characters; other characters pass through as UTF-8.
    public func renderJSON(_ messages: [InboxMessage]) -> [UInt8] {
        let fields = renderedFields
        var out = "["
        for (index, message) in messages.enumerated() {
            if index > 0 { out += "," }
            out += "{"
            var first = true
            for field in fields {
                guard let value = Self.jsonValue(field, of: message) else { continue }
                if !first { out += "," }
                first = false
                JSONText.appendString(field.rawValue, to: &out)
                out += ":"
                JSONText.appendString(value, to: &out)
            }
            out += "}"
        }
        out += "]"
        return Array(out.utf8)
    }

    /// The field's value as the text of a JSON string; nil when the field is absent.
    private static func jsonValue(_ field: ODataField, of message: InboxMessage) -> String? {
        switch field {
        case .id: message.id.text
        case .updateID: String(message.updateID.rawValue)
        case .recipient: "00" + message.recipient.digits
        case .sender: message.sender
        case .body: message.body
        case .dateTime: ISO8601.format(message.dateTime, zoneDesignator: false)
        case .status: AppMessageStatus(message.status).wireName
        }
    }
}
