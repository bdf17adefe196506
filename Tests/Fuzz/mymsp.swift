// libFuzzer harness: myMSP's request parameters — a query string or an `application/x-www-form-urlencoded` body
// (`QueryParameters`, as `MyMSPEndpoint` reads both; a body's bytes parse as its text) checked by `MyMSPCodec` for every method (the credentials with
// and without `pwd`, subscribe, updatekey, unsubscribe, get, send, the event poll) — and the text answers built from
// what was accepted (`MyMSPAnswer`: cleaning, `get`'s lines, the poll's records). Built and run by scripts/fuzz.sh;
// not part of the SwiftPM package.
@testable import TandemAPI
import TandemCore
import TandemHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMyMSP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        let parameters: MyMSPCodec.Parameters = QueryParameters(rawQuery: text).map { ($0.name, $0.value) }
        // A POST body is read as bytes (`MyMSPEndpoint`): the same pairs as its text.
        guard QueryParameters(formBody: Array(UnsafeBufferPointer(start: data, count: size))) == QueryParameters(rawQuery: text) else {
            fatalError("a form body parses otherwise as bytes than as text")
        }
        for password in [false, true] {
            if let credentials = try? MyMSPCodec.credentials(parameters, password: password) {
                guard !credentials.user.isEmpty, (credentials.password != nil) == password,
                      credentials.password.map({ !$0.isEmpty }) ?? true else { fatalError("credentials accepted empty or unasked") }
            }
        }
        if let subscribe = try? MyMSPCodec.subscribe(parameters) {
            check(key: subscribe.key)
            check(message: subscribe.message)
            if let recipient = subscribe.recipient { check(recipient: recipient) }
        }
        if let update = try? MyMSPCodec.updateKey(parameters) {
            check(key: update.key)
            check(recipient: update.recipient)
        }
        if let unsubscribe = try? MyMSPCodec.unsubscribe(parameters) {
            check(message: unsubscribe.message)
            check(recipient: unsubscribe.recipient)
        }
        if let get = try? MyMSPCodec.get(parameters) {
            check(recipient: get.recipient)
            guard get.lastMsgno >= 0 else { fatalError("negative lastmsgno \(get.lastMsgno)") }
            if let sentAfter = get.sentAfter {
                // A real instant written back in the same format reads as the same instant.
                guard MyMSPTime.parseCompact(MyMSPTime.compact(sentAfter)) == sentAfter else {
                    fatalError("sentafter \(sentAfter) does not survive its own format")
                }
            }
        }
        if let send = try? MyMSPCodec.send(parameters) {
            check(message: send.message)
            guard !send.recipientIDs.isEmpty || !send.groups.isEmpty else { fatalError("a send without recipients") }
            guard send.groups.allSatisfy({ !$0.isEmpty && !$0.contains(",") && !$0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
            else { fatalError("a group name that is empty, holds a comma or is an id: \(send.groups)") }
            guard send.timeToLive.map({ (0...MyMSPCodec.maxTimeToLive).contains($0) }) ?? true else { fatalError("timetolive out of range") }
            for option in [send.collapseKey, send.restrictedPackageName].compactMap({ $0 }) {
                guard !option.isEmpty, option.count <= MyMSPCodec.maxOptionCharacters,
                      !option.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    fatalError("an option that breaks its limits was accepted")
                }
            }
            answers(text: send.message, recipient: send.recipientIDs.first ?? 1)
        }
        if let poll = try? MyMSPCodec.poll(parameters) {
            guard poll.lastMsgID >= 0 else { fatalError("negative lastMsgId \(poll.lastMsgID)") }
        }
        // Whatever the input, the answers' framing holds for it as a notification's text and an event's subject.
        answers(text: text, recipient: 2_000_001)
    }
}

private func check(key: PushToken) {
    guard !key.text.isEmpty, key.text.utf8.count <= 4_096, key.text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
        fatalError("a key that is not 1 to 4,096 printable bytes was accepted")
    }
}

private func check(message: String) {
    guard message.utf8.count <= MyMSPCodec.maxMessageBytes else { fatalError("a message over 4,000 bytes was accepted") }
}

private func check(recipient: Int64) {
    guard recipient > 0 else { fatalError("recipient id \(recipient) accepted") }
}

/// `get`'s answer is `A` and one line of three tab-separated fields per notification; the poll's, cleaned, `A` and one
/// `;;` line of nine fields per event; an uncleaned poll still starts every record with `;;` after a line break.
private func answers(text: String, recipient: Int64) {
    let instant = Timestamp(milliseconds: 1_790_000_000_123)
    let cleaned = MyMSPAnswer.clean(text)
    guard !cleaned.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x09 }) else { fatalError("cleaning left a CR, LF or TAB") }
    let notification = MyMSPNotification(msgno: 7, sentAt: instant, text: text, delivery: DeliveryKey(1), final: false)
    let listed = MyMSPAnswer.notifications([notification, notification])
    let lines = listed.split(separator: 0x0A, omittingEmptySubsequences: false)
    guard lines.count == 4, Array(lines[0]) == [0x41], lines[3].isEmpty,
          lines[1...2].allSatisfy({ $0.split(separator: 0x09, omittingEmptySubsequences: false).count == 3 }) else {
        fatalError("get's answer is not A and one three-field line per notification: \(listed)")
    }
    let event = MyMSPEvent(msgno: 8, createdAt: instant, userName: "dpnuser", action: .subscribe, recipient: recipient,
                           destination: "/external/notifications/subscribe", subject: text)
    let clean = MyMSPAnswer.events([event, event], clean: true)
    let records = clean.split(separator: 0x0A, omittingEmptySubsequences: false)
    guard records.count == 4, Array(records[0]) == [0x41], records[3].isEmpty,
          records[1...2].allSatisfy({ $0.starts(with: [0x3B, 0x3B]) && $0.split(separator: 0x09, omittingEmptySubsequences: false).count == 9 })
    else {
        fatalError("the cleaned poll is not A and one nine-field record per event: \(clean)")
    }
    // Bytes, not Characters: a subject ending in CR would join the final LF into one "\r\n" Character.
    let raw = MyMSPAnswer.events([event], clean: false)
    guard raw.starts(with: Array("A\n;;8\t".utf8)), raw.last == 0x0A else {
        fatalError("the poll's record does not start with ;; and its msgno, or does not end with LF")
    }
}
