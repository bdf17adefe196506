import Testing
import TandemCore
@testable import TandemAPI

@Suite("User-Agent platform")
struct UserAgentTests {
    @Test("the platform is read by whole words, in any casing; Windows Phone wins", arguments: [
        ("MyApp/1.0 (Android 6.0.1; LGE; Nexus 5X; en_US)", Platform.android),
        ("ANDROID", .android),
        ("MyApp android", .android),
        ("MyApp/2.3 (iPhone; iOS 17.1; Scale/3.00)", .iOS),
        ("x iPadOS", .iOS),
        ("iphoneos", .iOS),
        ("Windows Phone 8.1; Android 4.0; iPhone", .windowsPhone),
        ("windowsphone", .windowsPhone),
        ("WINDOWS  ,PHONE", .windowsPhone),
        ("Windows 11; iPhone", .iOS),
        ("Windows NT; Phone", nil),
        ("Androids", nil),
        ("AndroidAndroidAndroid", nil),
        ("iPhone12", nil),
        ("windowsphonewindowsphone iOS", .iOS),
        ("windowsphone1 Android", .android),  // one letter past a name's 12: another word
        ("androidx; ipados1", nil),
        ("", nil),
    ] as [(String, Platform?)])
    func platform(agent: String, expected: Platform?) {
        #expect(UserAgent.platform(agent) == expected, "\(agent)")
    }
}
