import TandemCore

/// Encodes MESSAGES responses as bytes with a fixed member order, so equal inputs give equal bytes.
///
/// JSON success (HTTP 200): `{"details":"Created 2 message(s)","errorCode":0,"messages":[{"to":"0031612345678",
/// "status":"Accepted","reference":"ref","parts":1,"messageDetails":null,"messageErrorCode":0,"messageId":"…"}]}`.
/// Some lines rejected: HTTP 200, `errorCode` 201, `"Created 1 message(s), 1 rejected"`. Every line rejected:
/// HTTP 400, `errorCode` 201, `"Created 0 message(s), 2 rejected"` (nothing was sent, so clients that only
/// look at the status see a failure). Whole-request failure: `{"details":"…","errorCode":101,"messages":[]}`
/// with HTTP 400 (500 for `internalError`). XML and GET success is HTTP 200 with an empty body (nothing to
/// encode); their failures are the plain text `Error: ERROR <details>`.
///
/// Not decided here: which lines to write. The handler writes one line per recipient of every entry (a
/// refused entry with no readable recipients still deserves one line, e.g. with `to` ""); an empty list
/// encodes as `"Created 0 message(s)"`, errorCode 0, HTTP 200.
public enum CMResponseEncoder {
    public static func json(lines: [CMResponseLine]) -> (status: Int, body: [UInt8]) {
        let accepted = lines.count { $0.accepted }
        let rejected = lines.count - accepted
        var details = "Created \(accepted) message(s)"
        if rejected > 0 { details += ", \(rejected) rejected" }
        let code: CMErrorCode = rejected > 0 ? .notAllMessagesSent : .ok
        var out = ""
        out.reserveCapacity(64 + lines.count * 160)
        appendEnvelopeStart(details: details, code: code, to: &out)
        for (position, line) in lines.enumerated() {
            if position > 0 { out += "," }
            append(line, to: &out)
        }
        out += "]}"
        let status = rejected > 0 && accepted == 0 ? 400 : 200
        return (status, Array(out.utf8))
    }

    public static func jsonFailure(_ error: CMRequestError) -> (status: Int, body: [UInt8]) {
        var out = ""
        appendEnvelopeStart(details: error.details, code: error.code, to: &out)
        out += "]}"
        return (httpStatus(for: error), Array(out.utf8))
    }

    /// `Error: ERROR <details>` as text, for XML and GET requests.
    public static func plainFailure(_ error: CMRequestError) -> (status: Int, body: [UInt8]) {
        (httpStatus(for: error), Array("Error: ERROR \(error.details)".utf8))
    }

    private static func httpStatus(for error: CMRequestError) -> Int { error.code == .internalError ? 500 : 400 }

    private static func appendEnvelopeStart(details: String, code: CMErrorCode, to out: inout String) {
        out += #"{"details":"#
        JSONText.appendString(details, to: &out)
        out += #","errorCode":\#(code.rawValue),"messages":["#
    }

    private static func append(_ line: CMResponseLine, to out: inout String) {
        out += #"{"to":"#
        JSONText.appendString(line.to, to: &out)
        out += line.accepted ? #","status":"Accepted""# : #","status":"Rejected""#
        out += #","reference":"#
        appendOptional(line.reference, to: &out)
        out += #","parts":\#(line.parts),"messageDetails":"#
        appendOptional(line.details, to: &out)
        out += #","messageErrorCode":\#(line.errorCode.rawValue)"#
        if let messageID = line.messageID {
            out += #","messageId":"#
            JSONText.appendString(messageID, to: &out)
        }
        out += "}"
    }

    private static func appendOptional(_ text: String?, to out: inout String) {
        if let text {
            JSONText.appendString(text, to: &out)
        } else {
            out += "null"
        }
    }
}
