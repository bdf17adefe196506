import TandemCore

/// Decodes CM MESSAGES requests in their three forms into a `CMSubmission`. Pure: no I/O, no clock.
///
/// Keys and element names match in any ASCII casing (`producttoken`, `productToken`, `PRODUCTTOKEN`);
/// enum values in any casing with stray spaces (`" Push "`); unknown keys are ignored. A known key with a
/// value of the wrong JSON type refuses that message with 305 naming the field.
///
/// Whole-request failures (`CMRequestError`): 202 when the body is not well-formed JSON/XML or lacks the
/// `messages` / `MESSAGES` envelope, 203 when `msg` is missing, empty, not an array, holds a non-object or
/// more than `maximumMessages` messages (checked before any message is decoded).
/// Everything else is per message (`CMMessageEntry.result`) or per recipient (`CMRecipient.result`).
///
/// Example: `{"messages":{"authentication":{"producttoken":"…"},"msg":[{"from":"Shop","to":[{"number":
/// "0031612345678"},{"number":"12"}],"body":{"content":"Hi"}}]}` decodes to one message with two
/// recipients: `+31612345678`, and `12` refused with 303.
public enum CMCodec {
    /// Messages in one request. A request of 2.8 million empty `{}` (8 MiB) would otherwise take seconds to
    /// decode before its product token is even checked; 10,000 messages of up to 1,000 recipients each is
    /// more than any body within the server's limit can carry in practice.
    public static let maximumMessages = 10_000

    /// `POST /v1.0/message`: `{"messages": {"authentication": {"producttoken": …}, "msg": [ … ]}}`.
    public static func decodeJSON(_ bytes: [UInt8]) throws(CMRequestError) -> CMSubmission {
        let root: JSONValue
        switch JSONParser.parse(bytes) {
        case .success(let value): root = value
        case .failure(let error): throw .malformed("malformed JSON at byte \(error.offset): \(error.problem)")
        }
        guard case .object(let rootMembers) = root else { throw .malformed("the request must be a JSON object") }
        guard case .object(let envelope)? = try single(rootMembers, "messages") else {
            throw .malformed("the request has no \"messages\" object")
        }
        var productToken: String?
        switch try single(envelope, "authentication") {
        case nil, .null?:
            break
        case .object(let authentication)?:
            switch try single(authentication, "producttoken") {
            case nil, .null?: break
            case .string(let token)?: productToken = token
            case let other?: throw .malformed("authentication.producttoken must be a string, got \(other.kindDescription)")
            }
        case let other?:
            throw .malformed("authentication must be an object, got \(other.kindDescription)")
        }
        guard let msg = try single(envelope, "msg"), msg != .null else {
            throw .messageArray("the request has no \"msg\" array")
        }
        guard case .array(let elements) = msg else { throw .messageArray("msg must be an array, got \(msg.kindDescription)") }
        guard !elements.isEmpty else { throw .messageArray("the msg array is empty") }
        try requireAtMostMaximumMessages(elements.count)
        var entries: [CMMessageEntry] = []
        entries.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let members) = element else {
                throw .messageArray("msg[\(index)] must be an object, got \(element.kindDescription)")
            }
            entries.append(CMMessageDecoder.entry(members: members, index: index, format: .json))
        }
        return CMSubmission(format: .json, productToken: normalisedToken(productToken), messages: entries)
    }

    /// 203 for more than `maximumMessages` messages.
    static func requireAtMostMaximumMessages(_ count: Int) throws(CMRequestError) {
        guard count <= maximumMessages else {
            throw .messageArray("the request has \(count) messages; at most \(maximumMessages) are allowed per request")
        }
    }

    /// The one value for `name` (any casing) in an envelope object; 202 when it is given twice.
    static func single(_ members: [JSONMember], _ name: String) throws(CMRequestError) -> JSONValue? {
        let values = members.values(named: name)
        guard values.count <= 1 else { throw .malformed("\"\(name)\" appears more than once") }
        return values.first
    }

    /// Trimmed; nil when absent or empty.
    static func normalisedToken(_ token: String?) -> String? {
        guard let trimmed = token?.trimmingASCIISpaces(), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
