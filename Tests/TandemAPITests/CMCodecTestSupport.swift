import Testing
import TandemAPI
import TandemCore

let productToken = "00000000-0000-0000-0000-000000000000"
let appKeyText = "0f8fad5b-d9cb-469f-a165-70867728950e"

/// Decodes a JSON request given as text.
func decodeJSON(_ text: String) throws(CMRequestError) -> CMSubmission {
    try CMCodec.decodeJSON(Array(text.utf8))
}

/// Decodes an XML request given as text.
func decodeXML(_ text: String) throws(CMRequestError) -> CMSubmission {
    try CMCodec.decodeXML(Array(text.utf8))
}

/// A JSON request with the given `msg` member text (`"from":"X","to":[…],…`) as its only message.
func jsonRequest(_ members: String) -> String {
    #"{"messages":{"authentication":{"producttoken":"\#(productToken)"},"msg":[{\#(members)}]}}"#
}

/// The minimal valid members plus `extra` (which may override nothing; keys must not repeat).
func jsonMessage(_ extra: String = "", from: String = #""from":"Tandem""#,
                 to: String = #""to":[{"number":"0031612345678"}]"#,
                 body: String = #""body":{"content":"Hello"}"#) -> String {
    jsonRequest([from, to, body, extra].filter { !$0.isEmpty }.joined(separator: ","))
}

/// The request-level error `decode` throws, or nil when it succeeds.
func requestError(_ decode: () throws(CMRequestError) -> CMSubmission) -> CMRequestError? {
    do {
        _ = try decode()
        return nil
    } catch {
        return error
    }
}

extension CMSubmission {
    /// The only message's result.
    var onlyResult: Result<CMMessage, CMMessageError>? {
        messages.count == 1 ? messages[0].result : nil
    }

    /// The only message, when it decoded.
    var onlyMessage: CMMessage? {
        guard case .success(let message)? = onlyResult else { return nil }
        return message
    }

    /// The only message's error, when it was refused.
    var onlyError: CMMessageError? {
        guard case .failure(let error)? = onlyResult else { return nil }
        return error
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
