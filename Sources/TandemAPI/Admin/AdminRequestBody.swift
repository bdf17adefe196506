import TandemCore

/// An admin request body: exactly one JSON object whose keys are all known, each at most once.
///
/// Parsed with the gateway's strict ``JSONParser`` (valid UTF-8, no trailing commas, no comments), so a
/// typo such as `"keyID"` is refused with 400 rather than silently ignored. Keys are case-sensitive.
/// Optional members may be absent or `null`.
/// Not guaranteed: any particular limit on size beyond the server's `http.maxBodyBytes`.
struct AdminRequestBody {
    private let members: [String: JSONValue]

    /// - Parameters:
    ///   - keys: every key the route accepts.
    ///   - emptyAllowed: whether an empty (or all-whitespace) body reads as `{}`.
    init(_ body: [UInt8], keys: Set<String>, emptyAllowed: Bool = false) throws(AdminFailure) {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            guard emptyAllowed else { throw .badRequest("the body must be a JSON object") }
            members = [:]
            return
        }
        let value: JSONValue
        switch JSONParser.parse(body) {
        case .success(let parsed): value = parsed
        case .failure(let error): throw .badRequest("the body is not valid JSON: \(error.problem) (at byte \(error.offset))")
        }
        guard case .object(let list) = value else {
            throw .badRequest("the body must be a JSON object, not \(value.kindDescription)")
        }
        var members: [String: JSONValue] = [:]
        for member in list {
            guard keys.contains(member.key) else {
                let expected = keys.isEmpty ? "this request takes no keys"
                    : "expected " + keys.sorted().map(JSONText.quoted).joined(separator: ", ")
                throw .badRequest("unknown key \(JSONText.quoted(member.key)): \(expected)")
            }
            guard members.updateValue(member.value, forKey: member.key) == nil else {
                throw .badRequest("key \(JSONText.quoted(member.key)) is given twice")
            }
        }
        self.members = members
    }

    /// The string at `key`; nil when absent or null.
    func string(_ key: String) throws(AdminFailure) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw .badRequest("\(JSONText.quoted(key)) must be a string, not \(other.kindDescription)")
        }
    }

    /// The string at `key`; 400 when absent or null.
    func requiredString(_ key: String) throws(AdminFailure) -> String {
        guard let text = try string(key) else { throw .badRequest("\(JSONText.quoted(key)) is required") }
        return text
    }

    /// The boolean at `key`; nil when absent or null.
    func bool(_ key: String) throws(AdminFailure) -> Bool? {
        switch members[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?: throw .badRequest("\(JSONText.quoted(key)) must be true or false, not \(other.kindDescription)")
        }
    }

    /// The integer at `key`; nil when absent or null. A whole number written with a fraction or an exponent
    /// (`10.0`, `1e1`: what a JSON encoder may write for a float holding 10) counts as that integer, as in JSON
    /// Schema; `10.5` does not.
    func int(_ key: String) throws(AdminFailure) -> Int? {
        switch members[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            if let value = Int(text) { return value }
            // Below 2^53 every whole number is a Double of its own, so the text meant exactly this value (at 2^53,
            // 9007199254740993.0 would read as 9007199254740992).
            guard let value = Double(text), value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 else {
                throw .badRequest("\(JSONText.quoted(key)) must be a whole number, not \(text)")
            }
            return Int(value)
        case let other?: throw .badRequest("\(JSONText.quoted(key)) must be a number, not \(other.kindDescription)")
        }
    }

    /// The array of strings at `key`; nil when absent or null.
    func strings(_ key: String) throws(AdminFailure) -> [String]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            var texts: [String] = []
            for item in items {
                guard case .string(let text) = item else {
                    throw .badRequest("\(JSONText.quoted(key)) must be an array of strings, not of \(item.kindDescription)")
                }
                texts.append(text)
            }
            return texts
        case let other?: throw .badRequest("\(JSONText.quoted(key)) must be an array of strings, not \(other.kindDescription)")
        }
    }
}
