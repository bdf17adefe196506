import Testing
import TandemAPI

@Suite("CM responses")
struct CMResponseEncoderTests {
    private func text(_ body: [UInt8]) -> String { String(decoding: body, as: UTF8.self) }

    @Test("success: one line per recipient, byte-exact")
    func success() {
        let (status, body) = CMResponseEncoder.json(lines: [
            .accepted(to: "0031612345678", reference: "ref", parts: 1, messageID: "0f8fad5b-d9cb-469f-a165-70867728950e"),
            .accepted(to: "+44 7911 123456", reference: nil, parts: 2, messageID: nil),
        ])
        #expect(status == 200)
        #expect(text(body) == #"{"details":"Created 2 message(s)","errorCode":0,"messages":[{"to":"0031612345678","status":"Accepted","reference":"ref","parts":1,"messageDetails":null,"messageErrorCode":0,"messageId":"0f8fad5b-d9cb-469f-a165-70867728950e"},{"to":"+44 7911 123456","status":"Accepted","reference":null,"parts":2,"messageDetails":null,"messageErrorCode":0}]}"#)
    }

    @Test("partial failure: HTTP 200, errorCode 201, rejected lines carry their code and details")
    func partialFailure() {
        let (status, body) = CMResponseEncoder.json(lines: [
            .accepted(to: "0031612345678", reference: "r", parts: 1, messageID: "m-1"),
            .rejected(to: "0612345678", reference: "r", parts: 1,
                      error: CMMessageError(code: .invalidMSISDN, details: #""0612345678" is not an international number"#)),
        ])
        #expect(status == 200)
        #expect(text(body) == #"{"details":"Created 1 message(s), 1 rejected","errorCode":201,"messages":[{"to":"0031612345678","status":"Accepted","reference":"r","parts":1,"messageDetails":null,"messageErrorCode":0,"messageId":"m-1"},{"to":"0612345678","status":"Rejected","reference":"r","parts":1,"messageDetails":"\"0612345678\" is not an international number","messageErrorCode":303}]}"#)
    }

    @Test("every line rejected: HTTP 400, errorCode 201")
    func allRejected() {
        let (status, body) = CMResponseEncoder.json(lines: [
            .rejected(to: "x", reference: nil, parts: 0, error: CMMessageError(code: .channelNotSupported, details: "only WhatsApp")),
        ])
        #expect(status == 400)
        #expect(text(body) == #"{"details":"Created 0 message(s), 1 rejected","errorCode":201,"messages":[{"to":"x","status":"Rejected","reference":null,"parts":0,"messageDetails":"only WhatsApp","messageErrorCode":402}]}"#)
    }

    @Test("whole-request failure: HTTP 400 and no lines; 500 for an internal error")
    func wholeFailure() {
        let (status, body) = CMResponseEncoder.jsonFailure(CMRequestError(code: .authenticationFailed, details: "Invalid product token"))
        #expect(status == 400)
        #expect(text(body) == #"{"details":"Invalid product token","errorCode":101,"messages":[]}"#)
        let malformed = CMResponseEncoder.jsonFailure(CMRequestError(code: .malformedRequest, details: "bad \"x\"\n\u{01}"))
        #expect(text(malformed.body) == #"{"details":"bad \"x\"\n\u0001","errorCode":202,"messages":[]}"#)
        #expect(CMResponseEncoder.jsonFailure(CMRequestError(code: .internalError, details: "store down")).status == 500)
    }

    @Test("plain-text failure for XML and GET")
    func plainFailure() {
        let (status, body) = CMResponseEncoder.plainFailure(CMRequestError(code: .messageArrayIncorrect, details: "the request has no MSG element"))
        #expect(status == 400)
        #expect(text(body) == "Error: ERROR the request has no MSG element")
    }

    @Test("non-ASCII text is written as UTF-8, not escaped")
    func unicode() {
        let body = CMResponseEncoder.json(lines: [.accepted(to: "0031612345678", reference: "réf €", parts: 1, messageID: nil)]).body
        #expect(text(body).contains(#""reference":"réf €""#))
    }

    @Test("error codes keep CM's numbers and have descriptions")
    func errorCodes() {
        #expect(CMErrorCode.allCases.map(\.rawValue) == [0, 101, 102, 103, 201, 202, 203, 301, 302, 303, 304, 305, 401, 402, 403, 500, 999])
        #expect(CMErrorCode.allCases.allSatisfy { !$0.defaultDescription.isEmpty })
        #expect(Set(CMErrorCode.allCases.map(\.defaultDescription)).count == CMErrorCode.allCases.count)
    }
}
