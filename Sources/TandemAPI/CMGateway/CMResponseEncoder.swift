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
        // Written as bytes: no String to grow and copy out again.
        var out: [UInt8] = []
        out.reserveCapacity(64 + lines.count * 192)
        appendEnvelopeStart(details: details, code: code, to: &out)
        for (position, line) in lines.enumerated() {
            if position > 0 { out.append(0x2C) }
            append(line, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        let status = rejected > 0 && accepted == 0 ? 400 : 200
        return (status, out)
    }

    public static func jsonFailure(_ error: CMRequestError) -> (status: Int, body: [UInt8]) {
        var out: [UInt8] = []
        appendEnvelopeStart(details: error.details, code: error.code, to: &out)
        out.append(contentsOf: "]}".utf8)
        return (httpStatus(for: error), out)
    }

    /// `Error: ERROR <details>` as text, for XML and GET requests.
    public static func plainFailure(_ error: CMRequestError) -> (status: Int, body: [UInt8]) {
        (httpStatus(for: error), Array("Error: ERROR \(error.details)".utf8))
    }

    private static func httpStatus(for error: CMRequestError) -> Int { error.code == .internalError ? 500 : 400 }

    private static func appendEnvelopeStart(details: String, code: CMErrorCode, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"details":"#.utf8)
        JSONText.appendString(details, to: &out)
        out.append(contentsOf: #","errorCode":"#.utf8)
        out.append(contentsOf: String(code.rawValue).utf8)
        out.append(contentsOf: #","messages":["#.utf8)
    }

    private static func append(_ line: CMResponseLine, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"to":"#.utf8)
        JSONText.appendString(line.to, to: &out)
        out.append(contentsOf: (line.accepted ? #","status":"Accepted""# : #","status":"Rejected""#).utf8)
        out.append(contentsOf: #","reference":"#.utf8)
        appendOptional(line.reference, to: &out)
        out.append(contentsOf: #","parts":"#.utf8)
        out.append(contentsOf: String(line.parts).utf8)
        out.append(contentsOf: #","messageDetails":"#.utf8)
        appendOptional(line.details, to: &out)
        out.append(contentsOf: #","messageErrorCode":"#.utf8)
        out.append(contentsOf: String(line.errorCode.rawValue).utf8)
        if let messageID = line.messageID {
            out.append(contentsOf: #","messageId":"#.utf8)
            JSONText.appendString(messageID, to: &out)
        }
        out.append(0x7D)
    }

    private static func appendOptional(_ text: String?, to out: inout [UInt8]) {
        if let text {
            JSONText.appendString(text, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }
}
