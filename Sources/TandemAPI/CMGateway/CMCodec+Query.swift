import TandemCore

extension CMCodec {
    /// `GET /gateway.ashx?producttoken=…&body=…&to=…&from=…&reference=…`: one message from the query.
    ///
    /// `pairs` are the already percent-decoded parameters in order. Names match in any casing and are the
    /// `msg` field names (`appkey`, `allowedchannels`, `minimumnumberofmessageparts`, …); `type` or
    /// `bodytype` sets `body.type`. `to` may repeat and may hold several numbers separated by commas;
    /// `allowedchannels` likewise. `richcontent` is ignored (JSON only). Refused with 203: a query that
    /// names none of `from`, `to`, `body`.
    public static func decodeQuery(_ pairs: [(name: String, value: String)]) throws(CMRequestError) -> CMSubmission {
        var productTokens: [String] = []
        var members: [JSONMember] = []
        var recipients: [JSONValue] = []
        var channels: [JSONValue] = []
        var bodyMembers: [JSONMember] = []
        for (name, value) in pairs {
            if ASCIICase.equal(name, "producttoken") {
                productTokens.append(value)
            } else if ASCIICase.equal(name, CMField.to.wireName) {
                recipients += value.split(separator: ",", omittingEmptySubsequences: true)
                    .map { .string(String($0).trimmingASCIISpaces()) }
                    .filter { $0 != .string("") }
            } else if ASCIICase.equal(name, CMField.allowedChannels.wireName) {
                channels.append(.string(value))
            } else if ASCIICase.equal(name, CMField.body.wireName) {
                bodyMembers.append(JSONMember(key: "content", value: .string(value)))
            } else if ASCIICase.equal(name, "type") || ASCIICase.equal(name, "bodytype") {
                bodyMembers.append(JSONMember(key: "type", value: .string(value)))
            } else if !ASCIICase.equal(name, CMField.richContent.wireName) {
                members.append(JSONMember(key: name, value: .string(value)))
            }
        }
        guard productTokens.count <= 1 else { throw .malformed("producttoken appears more than once") }
        let namesMessage = !bodyMembers.isEmpty || !recipients.isEmpty
            || members.contains { CMField(key: $0.key) == .from }
        guard namesMessage else { throw .messageArray("the query names no message (from, to, body)") }
        if !recipients.isEmpty { members.append(JSONMember(key: CMField.to.wireName, value: .array(recipients))) }
        if !channels.isEmpty { members.append(JSONMember(key: CMField.allowedChannels.wireName, value: .array(channels))) }
        if !bodyMembers.isEmpty { members.append(JSONMember(key: CMField.body.wireName, value: .object(bodyMembers))) }
        let entry = CMMessageDecoder.entry(members: members, index: 0, format: .get)
        return CMSubmission(format: .get, productToken: normalisedToken(productTokens.first), messages: [entry])
    }
}
