import Testing
import TandemCore
@testable import TandemProviders

/// The BWMI-shaped payloads (``BWMIPush``) from both renderers: exactly the members BWMI's documentation
/// shows, FCM values all strings, and nothing of Tandem's own.
@Suite("BWMI payloads")
struct BWMIPayloadTests {
    let identifiers = PushIdentifiers.members(messageID: GUID("0a1868e6-04c9-4d3b-8125-2f9597f68e78")!, updateID: DeliveryKey(42))

    func presentation(_ push: BWMIPush, badge: Int?, sound: String? = nil) -> PushPresentation {
        var p = PushPresentation()
        p.bwmi = push
        p.badge = badge
        p.sound = sound.map(PushSound.named)
        return p
    }

    func fcm(_ p: PushPresentation, text: String) -> String {
        String(decoding: FCMRenderer(includeNotification: true, payloadLimit: 4_096)
            .payload(p, token: "tok", identifiers: identifiers, sender: "Bank", text: text, priority: .high, ttlSeconds: 60,
                     collapseKey: "c"), as: UTF8.self)
    }

    func apns(_ p: PushPresentation, text: String) -> String {
        String(decoding: APNsRenderer(sound: "default", badge: 9).payload(p, title: "Bank", body: text, identifiers: identifiers),
               as: UTF8.self)
    }

    @Test("managed: FCM data {text,timestamp,nid,bid,faf,badge}; APNs aps.alert, aps.badge, nid, bid, faf")
    func managed() {
        let p = presentation(.managed(bid: "USER_TRANSACTION", sentAt: 1_374_224_245_011), badge: 1)
        #expect(fcm(p, text: "Cash withdrawal") == #"{"message":{"token":"tok","data":{"text":"Cash withdrawal","timestamp":"1374224245011","nid":"42","bid":"USER_TRANSACTION","faf":"false","badge":"1"},"android":{"priority":"HIGH","ttl":"60s","collapse_key":"c"}}}"#)
        #expect(apns(p, text: "Cash withdrawal") == #"{"aps":{"alert":"Cash withdrawal","badge":1},"nid":"42","bid":"USER_TRANSACTION","faf":"false"}"#)
    }

    @Test("fire-and-forget: FCM data {text,faf,sound,badge}; APNs with sound; no nid")
    func fireAndForget() {
        let p = presentation(.fireAndForget(bid: nil), badge: 1, sound: "default")
        #expect(fcm(p, text: "Salary deposited").contains(#""data":{"text":"Salary deposited","faf":"true","sound":"default","badge":"1"}"#))
        #expect(apns(p, text: "Salary deposited") == #"{"aps":{"alert":"Salary deposited","sound":"default","badge":1},"faf":"true"}"#)
    }

    @Test("badge update: FCM data {badge}; APNs aps.badge alone")
    func badgeOnly() {
        let p = presentation(.badgeOnly, badge: 0)
        #expect(fcm(p, text: "").contains(#""data":{"badge":"0"}"#))
        #expect(apns(p, text: "") == #"{"aps":{"badge":0}}"#)
    }

    @Test("a text too long for APNs is cut to fit 4 KB")
    func cut() {
        let payload = apns(presentation(.managed(bid: nil, sentAt: 1), badge: 1), text: String(repeating: "x", count: 5_000))
        #expect(payload.utf8.count <= APNsRenderer.maximumBytes && payload.contains("…"))
    }
}
