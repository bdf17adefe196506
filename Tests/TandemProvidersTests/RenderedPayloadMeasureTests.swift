import Testing
import TandemCore
@testable import TandemProviders

@Suite("Accept-time push size check")
struct RenderedPayloadMeasureTests {
    let measure = RenderedPayloadMeasure(apns: APNsRenderer(sound: "default", badge: nil),
                                         fcm: FCMRenderer(includeNotification: true, payloadLimit: 4_096))

    private func content(body: String, _ presentation: PushPresentation) -> MessageContent {
        MessageContent(messageID: GUID("0f8fad5b-d9cb-469f-a165-70867728950e")!, sender: "Shop", body: body, reference: nil,
                       presentation: presentation)
    }

    @Test("a long text alone always fits: the renderers cut it")
    func longTextFits() {
        let long = content(body: String(repeating: "€", count: 20_000), PushPresentation())
        #expect(measure.oversize(long, platform: .iOS) == nil)
        #expect(measure.oversize(long, platform: .android) == nil)
    }

    @Test("custom data that leaves no room is over the limit on both platforms, with the rendered size")
    func customDataTooLarge() throws {
        var presentation = PushPresentation()
        presentation.customData = [JSONMember(key: "blob", value: .string(String(repeating: "x", count: 4_200)))]
        let apns = try #require(measure.oversize(content(body: "hi", presentation), platform: .iOS))
        #expect(apns.limit == 4_096 && apns.bytes > 4_200)
        let fcm = try #require(measure.oversize(content(body: "hi", presentation), platform: .android))
        #expect(fcm.limit == 4_096 && fcm.bytes > 4_200)
        presentation.customData = [JSONMember(key: "blob", value: .string(String(repeating: "x", count: 3_000)))]
        #expect(measure.oversize(content(body: String(repeating: "y", count: 3_000), presentation), platform: .iOS) == nil,
                "the text is cut to make room for the data")
        #expect(measure.oversize(content(body: String(repeating: "y", count: 3_000), presentation), platform: .android) == nil)
    }

    @Test("the bound that spares rendering a short push is above what either renderer makes of it, escapes at their worst")
    func upperBound() throws {
        let worst = String(repeating: "\u{01}", count: 20)  // each byte escaped to six
        var all: [PushPresentation] = [PushPresentation()]
        var mymsp = PushPresentation()
        mymsp.customData = [JSONMember(key: "msgno", value: .number("12345678901"))]
        mymsp.android.collapseKey = worst
        mymsp.apnsCollapseID = worst
        mymsp.android.restrictedPackageName = worst
        all.append(mymsp)
        var every = PushPresentation()
        (every.title, every.subtitle, every.body, every.launchImage, every.summaryArg) = (worst, worst, worst, worst, worst)
        (every.threadID, every.category, every.targetContentID) = (worst, worst, worst)
        (every.summaryArgCount, every.badge, every.contentAvailable, every.mutableContent) = (Int.min, Int.min, true, true)
        every.sound = .dictionary(name: worst, critical: true, volume: 1)
        every.customData = [JSONMember(key: worst, value: .object([JSONMember(key: worst, value: .array([.string(worst), .null]))])),
                            JSONMember(key: "n", value: .number("-1.5e300")), JSONMember(key: "b", value: .bool(false))]
        (every.android.tag, every.android.clickAction, every.android.ticker) = (worst, worst, worst)
        every.android.eventTime = Timestamp(milliseconds: 1_700_000_000_000)
        all.append(every)
        var localized = every
        (localized.titleLocKey, localized.subtitleLocKey, localized.bodyLocKey) = (worst, worst, worst)
        (localized.titleLocArgs, localized.subtitleLocArgs, localized.bodyLocArgs) = ([worst, "a"], [worst], [worst, worst])
        all.append(localized)
        var dataOnly = mymsp
        dataOnly.dataOnly = true
        all.append(dataOnly)
        var bwmi = PushPresentation()
        bwmi.bwmi = .badgeOnly
        #expect(RenderedPayloadMeasure.upperBound(content(body: "x", bwmi), apnsSound: "default") == nil)

        var bounded = 0
        for presentation in all {
            for body in ["", "Hello from the benchmark", worst, String(repeating: "\"€", count: 40)] {
                let message = content(body: body, presentation)
                let bound = try #require(RenderedPayloadMeasure.upperBound(message, apnsSound: "default"))
                guard bound <= 4_096 else { continue }
                bounded += 1
                let identifiers = PushIdentifiers.members(messageID: message.messageID, updateID: DeliveryKey(Int64.max))
                for apns in [measure.apns, APNsRenderer(sound: "default", badge: Int.min)] {
                    #expect(apns.payload(presentation, title: message.sender, body: body, identifiers: identifiers).count <= bound)
                }
                for fcm in [measure.fcm, FCMRenderer(includeNotification: false, payloadLimit: 4_096)] {
                    #expect(fcm.fittedPayloadBytes(presentation, text: body, identifiers: identifiers, sender: "Shop") <= bound)
                }
                #expect(measure.oversize(message, platform: .iOS) == nil && measure.oversize(message, platform: .android) == nil)
            }
        }
        #expect(bounded >= 10)  // short pushes are spared rendering, the worst escapes included
        var notification = PushPresentation()  // a myMSP send's
        notification.customData = [JSONMember(key: "msgno", value: .number("12345678901"))]
        #expect(try #require(RenderedPayloadMeasure.upperBound(content(body: "Hello from the benchmark", notification),
                                                               apnsSound: "default")) < 2_048)
    }
}
