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
}
