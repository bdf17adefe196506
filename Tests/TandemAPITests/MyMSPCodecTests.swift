import TandemCore
import Testing
@testable import TandemAPI

/// The myMSP codec, method by method: every parameter, each error number, and the exact answer bytes.
@Suite("myMSP codec")
struct MyMSPCodecTests {
    typealias P = MyMSPCodec.Parameters

    /// `key=value&…`; `<x*N>` stands for N times the character x (long values, short test names).
    static func params(_ text: String) -> P {
        var text = text
        while let open = text.firstIndex(of: "<"), let close = text[open...].firstIndex(of: ">") {
            let spec = text[text.index(after: open)..<close].split(separator: "*")
            text.replaceSubrange(open...close, with: String(repeating: String(spec[0]), count: Int(spec[1]) ?? 0))
        }
        return text.isEmpty ? [] : text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    static func error<T>(_ body: () throws(MyMSPError) -> T) -> Int? {
        do {
            _ = try body()
            return nil
        } catch {
            return error.rawValue
        }
    }

    // MARK: Credentials

    @Test("user: missing 23, empty 22; pwd (send and poll only): missing 25, empty 24; user is checked first",
          arguments: [
              ("", false, 23), ("user=", false, 22), ("USER=a", false, nil), ("user=a", true, 25), ("user=a&pwd=", true, 24),
              ("pwd=x", true, 23), ("user=&pwd=", true, 22), ("user=a&pwd=x", true, nil), ("user=a&user=", false, nil),
          ] as [(String, Bool, Int?)])
    func credentials(query: String, password: Bool, expected: Int?) {
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.credentials(Self.params(query), password: password) } == expected)
    }

    @Test("parameter names match ASCII case-insensitively, and only so")
    func nameMatching() {
        let parameters: P = [("uSeR", "a"), ("PWD", "b"), ("recipient\u{212A}", "c"), ("me$sage", "d"), ("kéy", "e"), ("@", "f")]
        #expect(MyMSPCodec.value(parameters, "user") == "a" && MyMSPCodec.value(parameters, "pwd") == "b")
        #expect(MyMSPCodec.value(parameters, "recipientk") == nil)  // the Kelvin sign lowercases to k: not ASCII
        #expect(MyMSPCodec.value(parameters, "me$SAGE") == "d" && MyMSPCodec.value(parameters, "me4sage") == nil)
        #expect(MyMSPCodec.value(parameters, "key") == nil)
        #expect(MyMSPCodec.value(parameters, "`") == nil && MyMSPCodec.value(parameters, "@") == "f")
        #expect(MyMSPCodec.value(parameters, "kÉy") == nil && MyMSPCodec.value(parameters, "kéy") == "e")
    }

    @Test("credentials keep the first value of each name and no password for app methods")
    func credentialValues() throws {
        let app = try MyMSPCodec.credentials(Self.params("user=dpn&pwd=ignored"), password: false)
        #expect(app == MyMSPCodec.Credentials(user: "dpn", password: nil))
        let server = try MyMSPCodec.credentials(Self.params("user=dpn&pwd=s3cret&pwd=other"), password: true)
        #expect(server.password == "s3cret")
    }

    // MARK: subscribe

    @Test("subscribe: recipientid 412, spid 60, key 61, message 63", arguments: [
        ("spid=apns&key=abc", nil), ("spid=APNS&key=abc&recipientid=", nil), ("spid=gcm&key=abc&recipientid=2000001", nil),
        ("spid=fcm&key=abc&message=hello", nil),
        ("spid=apns&key=abc&recipientid=x", 412), ("spid=apns&key=abc&recipientid=0", 412),
        ("spid=apns&key=abc&recipientid=-5", 412), ("spid=apns&key=abc&recipientid=1234567890123456789", 412),
        ("key=abc", 60), ("spid=&key=abc", 60), ("spid=c2dm&key=abc", 60),
        ("spid=apns", 61), ("spid=apns&key=", 61), ("spid=apns&key=a%20b", 61),
        ("spid=apns&key=abc&message=<x*4001>", 63),
        ("spid=apns&key=abc&message=<x*4000>", nil),
        ("spid=apns&key=abc&message=<é*2001>", 63),
    ] as [(String, Int?)])
    func subscribe(query: String, expected: Int?) {
        let parameters = Self.params(query.replacingOccurrences(of: "%20", with: " "))
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.subscribe(parameters) } == expected)
    }

    @Test("subscribe values: empty recipientid is absent, spid case-insensitive, message optional")
    func subscribeValues() throws {
        let new = try MyMSPCodec.subscribe(Self.params("spid=APNs&key=t0k&recipientid="))
        #expect(new.recipient == nil && new.provider == .apns && new.key.text == "t0k" && new.message == "")
        let existing = try MyMSPCodec.subscribe(Self.params("spid=gcm&key=t&recipientid=2000001&message=Msg A"))
        #expect(existing.recipient == 2_000_001 && existing.provider == .gcm && existing.message == "Msg A")
        #expect(MyMSPServiceProvider.gcm.platform == .android && MyMSPServiceProvider.fcm.platform == .android)
        #expect(MyMSPServiceProvider.apns.platform == .iOS)
    }

    // MARK: updatekey, unsubscribe

    @Test("updatekey: recipientid required (412), spid 60, key 61", arguments: [
        ("recipientid=7&spid=fcm&key=k", nil), ("spid=fcm&key=k", 412), ("recipientid=&spid=fcm&key=k", 412),
        ("recipientid=7x&spid=fcm&key=k", 412), ("recipientid=7&key=k", 60), ("recipientid=7&spid=sms&key=k", 60),
        ("recipientid=7&spid=fcm", 61), ("recipientid=7&spid=fcm&key=", 61),
    ] as [(String, Int?)])
    func updateKey(query: String, expected: Int?) {
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.updateKey(Self.params(query)) } == expected)
    }

    @Test("unsubscribe and unsubscribeall: recipientid 412, spid 60, message 63; no key needed", arguments: [
        ("recipientid=7&spid=apns", nil), ("recipientid=7&spid=apns&message=bye", nil), ("spid=apns", 412),
        ("recipientid=abc&spid=apns", 412), ("recipientid=7", 60), ("recipientid=7&spid=", 60),
        ("recipientid=7&spid=apns&message=<y*4001>", 63),
    ] as [(String, Int?)])
    func unsubscribe(query: String, expected: Int?) {
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.unsubscribe(Self.params(query)) } == expected)
    }

    // MARK: get

    @Test("get: recipientid 412, lastmsgno missing 392 / invalid 391, sentafter 66", arguments: [
        ("recipientid=7&lastmsgno=0", nil), ("recipientid=7&lastmsgno=12556&sentafter=20120101151617000", nil),
        ("recipientid=7&lastmsgno=0&sentafter=", nil),
        ("lastmsgno=0", 412), ("recipientid=7", 392), ("recipientid=7&lastmsgno=", 391), ("recipientid=7&lastmsgno=-1", 391),
        ("recipientid=7&lastmsgno=1e3", 391),
        ("recipientid=7&lastmsgno=0&sentafter=2012010115161700", 66), ("recipientid=7&lastmsgno=0&sentafter=20121301151617000", 66),
        ("recipientid=7&lastmsgno=0&sentafter=20120230151617000", 66), ("recipientid=7&lastmsgno=0&sentafter=20120101246017000", 66),
        ("recipientid=7&lastmsgno=0&sentafter=2012-01-01", 66),
    ] as [(String, Int?)])
    func get(query: String, expected: Int?) {
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.get(Self.params(query)) } == expected)
    }

    @Test("get values: sentafter is UTC yyyyMMddHHmmssSSS")
    func getValues() throws {
        let request = try MyMSPCodec.get(Self.params("recipientid=90001&lastmsgno=12556&sentafter=20120101151617123"))
        #expect(request.recipient == 90_001 && request.lastMsgno == 12_556)
        #expect(request.sentAfter == Timestamp(milliseconds: 1_325_430_977_123))  // 2012-01-01T15:16:17.123Z
    }

    // MARK: send

    @Test("send: message 63, recipients 28, delaywhileidle 64, collapsekey 65, timetolive 67, restrictedpackagename 68",
          arguments: [
              ("message=hi&recipients=1", nil), ("message=&recipients=1", nil), ("recipients=1", 63),
              ("message=<m*4001>&recipients=1", 63),
              ("message=hi", 28), ("message=hi&recipients=", 28), ("message=hi&recipients= , ,", 28),
              ("message=hi&recipients=groupA", nil),
              ("message=hi&recipients=1&delaywhileidle=true", nil), ("message=hi&recipients=1&delaywhileidle=FALSE", nil),
              ("message=hi&recipients=1&delaywhileidle=yes", 64), ("message=hi&recipients=1&delaywhileidle=1", 64),
              ("message=hi&recipients=1&collapsekey=<c*400>", nil),
              ("message=hi&recipients=1&collapsekey=<c*401>", 65),
              ("message=hi&recipients=1&collapsekey=a\u{1}b", 65),
              ("message=hi&recipients=1&timetolive=0", nil), ("message=hi&recipients=1&timetolive=2419200", nil),
              ("message=hi&recipients=1&timetolive=2419201", 67), ("message=hi&recipients=1&timetolive=-1", 67),
              ("message=hi&recipients=1&timetolive=1h", 67),
              ("message=hi&recipients=1&restrictedpackagename=com.example.app", nil),
              ("message=hi&recipients=1&restrictedpackagename=<p*401>", 68),
          ] as [(String, Int?)])
    func send(query: String, expected: Int?) {
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.send(Self.params(query)) } == expected)
    }

    @Test("send values: ids and group names, comma-separated with optional spaces, in order")
    func sendValues() throws {
        let request = try MyMSPCodec.send(Self.params(
            "message=Hello&recipients=2000001, 2000002 ,recipgroupA,,  grp B&delaywhileidle=true&collapsekey=news&timetolive=60"
            + "&restrictedpackagename=com.example"))
        #expect(request.recipientIDs == [2_000_001, 2_000_002])
        #expect(request.groups == ["recipgroupA", "grp B"])
        #expect(request.delayWhileIdle && request.collapseKey == "news" && request.timeToLive == 60)
        #expect(request.restrictedPackageName == "com.example" && request.message == "Hello")
        // A comma followed by a combining mark is one character, but still the separator (found by fuzzing): no
        // group name ever holds a comma.
        let combining = try MyMSPCodec.send(Self.params("message=x&recipients=grpA,\u{301}grpB,7"))
        #expect(combining.groups == ["grpA", "\u{301}grpB"] && combining.recipientIDs == [7])
        #expect(combining.groups.allSatisfy(MyMSPCodec.isGroupName))
        #expect(!MyMSPCodec.isGroupName("a,\u{301}b") && !MyMSPCodec.isGroupName("123") && !MyMSPCodec.isGroupName(" a")
                && MyMSPCodec.isGroupName("grp B"))
        let plain = try MyMSPCodec.send(Self.params("message=x&recipients=5"))
        #expect(!plain.delayWhileIdle && plain.collapseKey == nil && plain.timeToLive == nil && plain.restrictedPackageName == nil)
    }

    // MARK: poll

    @Test("the event poll: lastMsgId missing 392 / invalid 391; clean only when true", arguments: [
        ("lastMsgId=0", nil), ("lastmsgid=12", nil), ("", 392), ("lastMsgId=", 391), ("lastMsgId=x", 391),
    ] as [(String, Int?)])
    func poll(query: String, expected: Int?) {
        #expect(Self.error { () throws(MyMSPError) in try MyMSPCodec.poll(Self.params(query)) } == expected)
    }

    @Test("clean is true only for the word true")
    func pollClean() throws {
        #expect(try MyMSPCodec.poll(Self.params("lastMsgId=0&clean=TRUE")).clean)
        #expect(try !MyMSPCodec.poll(Self.params("lastMsgId=0&clean=1")).clean)
        #expect(try !MyMSPCodec.poll(Self.params("lastMsgId=0")).clean)
    }

    // MARK: Answers

    @Test("answers: A and values, N and the number, each line ended by LF")
    func answerBytes() {
        #expect(MyMSPAnswer.accepted(["2000001"]) == Array("A\n2000001\n".utf8))
        #expect(MyMSPAnswer.accepted(["2000001", "reactivated"]) == Array("A\n2000001\nreactivated\n".utf8))
        #expect(MyMSPAnswer.refused(.noRecipients) == Array("N\n28\n".utf8))
        #expect(MyMSPAnswer.refused(.invalidRecipientID) == Array("N\n412\n".utf8))
        #expect(MyMSPError.allCases.map(\.rawValue)
                == [7, 11, 12, 13, 22, 23, 24, 25, 28, 46, 60, 61, 63, 64, 65, 66, 67, 68, 391, 392, 412])
    }

    @Test("get lists msgno, sent time and the cleaned content, one per line")
    func getBytes() {
        let notifications = [
            MyMSPNotification(msgno: 12_556, sentAt: Timestamp(milliseconds: 1_325_430_977_000), text: "A notification message",
                              delivery: DeliveryKey(1), final: false),
            MyMSPNotification(msgno: 12_557, sentAt: Timestamp(milliseconds: 1_325_434_638_001), text: "Line\r\ntwo\nthree\rfour\tend",
                              delivery: DeliveryKey(2), final: true),
        ]
        #expect(String(decoding: MyMSPAnswer.notifications(notifications), as: UTF8.self)
                == "A\n12556\t20120101151617000\tA notification message\n12557\t20120101161718001\tLine n two n three n four end\n")
        #expect(MyMSPAnswer.notifications([]) == Array("A\n".utf8))
    }

    @Test("the poll lists ;; and nine tab-separated fields, cleaned only when asked")
    func pollBytes() {
        let events = [
            MyMSPEvent(msgno: 12_556, createdAt: Timestamp(milliseconds: 1_325_430_977_000), userName: "dpnuser", action: .subscribe,
                       recipient: 90_001, destination: "/external/notifications/subscribe", subject: "Msg A"),
            MyMSPEvent(msgno: 12_557, createdAt: Timestamp(milliseconds: 1_325_434_638_000), userName: "dpnuser",
                       action: .unsubscribeAll, recipient: 90_002, destination: "", subject: "two\nlines\tx"),
        ]
        #expect(String(decoding: MyMSPAnswer.events(events, clean: true), as: UTF8.self) == """
            A
            ;;12556\t2012-01-01 15:16\tdpnuser\tACTION_SUB\tDPN\tnull\t90001\tMsg A\tMsg A
            ;;12557\t2012-01-01 16:17\tdpnuser\tACTION_UNSUB_ALL\tDPN\tnull\t90002\ttwo n lines x\ttwo n lines x

            """)
        #expect(String(decoding: MyMSPAnswer.events([events[1]], clean: false), as: UTF8.self)
                == "A\n;;12557\t2012-01-01 16:17\tdpnuser\tACTION_UNSUB_ALL\tDPN\tnull\t90002\ttwo\nlines\tx\ttwo\nlines\tx\n")
    }

    @Test("an event's HTTP push is a form with the eight fields in order")
    func eventForm() {
        let event = MyMSPEvent(msgno: 5, createdAt: Timestamp(milliseconds: 1_325_430_977_000), userName: "dpn user",
                               action: .unsubscribeAll, recipient: 2_000_001, destination: "", subject: "unsub [2000001]")
        #expect(String(decoding: MyMSPEventForm.body(event), as: UTF8.self)
                == "messageType=DPN&msgNo=5&createTime=2012-01-01+15%3A16&creatorName=dpn+user&initialId=ACTION_UNSUB_ALL"
                + "&originatorText=2000001&destination=&subject=unsub+%5B2000001%5D")
        #expect(MyMSPEventForm.encode("é&=") == "%C3%A9%26%3D")
    }

    @Test("passwords: salted, verified in constant time, different salts give different hashes")
    func passwords() {
        let (salt, hash) = MyMSPPassword.hash("s3cret")
        #expect(MyMSPPassword.matches("s3cret", salt: salt, hash: hash))
        #expect(!MyMSPPassword.matches("s3cres", salt: salt, hash: hash))
        #expect(MyMSPPassword.hash("s3cret").hash != hash)
        #expect(salt.count == 32 && hash.count == 64)
    }

    @Test("send becomes one push-only command: msgno as custom data and extra, options mapped to FCM and APNs")
    func command() throws {
        var generator = SystemRandomNumberGenerator()
        let app = App(key: try #require(AppKey("11111111-2222-3333-4444-555555555555")), secret: AppSecret.random(using: &generator),
                      name: "News", account: try #require(ProductToken("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")),
                      defaultMessageType: .default, createdAt: 0)
        let device = DeviceID(GUID.random(using: &generator))
        let recipients = [MyMSPRecipient(id: 2_000_001, device: device, provider: .apns, active: true)]
        let request = try MyMSPCodec.send(Self.params("message=Hi&recipients=2000001&delaywhileidle=true&timetolive=60"
                                                      + "&collapsekey=<k*65>&restrictedpackagename=com.x"))
        let command = MyMSPService.command(request, msgno: 42, recipients: recipients, app: app, messageType: .default)
        #expect(command.api == "mymsp" && command.allowedChannels == .only([.push]) && command.appKey == app.key)
        #expect(command.recipients == [.registration(device)] && command.body == "Hi" && command.sender == "News")
        #expect(command.extra == "{\"msgno\":42}")
        let p = command.presentation
        #expect(p.customData == [JSONMember(key: "msgno", value: .number("42"))])
        #expect(p.android.collapseKey == String(repeating: "k", count: 65) && p.apnsCollapseID == nil)  // > 64 bytes: not for APNs
        #expect(p.android.ttl == .seconds(60) && p.apnsTimeToLive == .seconds(60))
        #expect(p.android.restrictedPackageName == "com.x" && p.android.priority == .normal)
        let short = MyMSPService.command(try MyMSPCodec.send(Self.params("message=Hi&recipients=1&collapsekey=news")), msgno: 1,
                                         recipients: recipients, app: app, messageType: .default)
        #expect(short.presentation.apnsCollapseID == "news" && short.presentation.android.priority == nil)
    }
}
