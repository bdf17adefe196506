import Testing
import TandemAPI
import TandemCore

@Suite("CM validity")
struct CMValidityTests {
    /// 2025-03-01T12:00:00Z.
    static let noonUTC = Timestamp(milliseconds: 1_740_830_400_000)

    @Test("absolute forms with a zone", arguments: [
        ("2025-03-01T12:00:00Z", 0), ("2025-03-01t12:00:00z", 0), ("2025-03-01T13:00:00+01:00", 0),
        ("2025-03-01T13:00:00+0100", 0), ("2025-03-01T13:00:00+01", 0), ("2025-03-01T07:30:00-04:30", 0),
        ("2025-03-01 13:00:00 +01:00", 0), ("2025-03-01 13:00:00+01:00", 0), ("2025-03-01 12:00:00Z", 0),
        ("2025-03-01 13:00:00 GMT+01:00", 0), ("2025-03-01 12:00:00 UTC", 0), ("2025-03-01 12:00:00 GMT", 0),
        (" 2025-03-01T12:00:00Z ", 0), ("2025-03-01T12:00:00.250Z", 250), ("2025-03-01T12:00:00.5Z", 500),
        ("2025-03-01T12:00:00.0001Z", 1),
    ])
    func absolute(text: String, extraMilliseconds: Int64) {
        #expect(CMValidity(cmText: text) == .absolute(Timestamp(milliseconds: Self.noonUTC.milliseconds + extraMilliseconds)))
    }

    @Test("calendar edges")
    func calendar() {
        #expect(CMValidity(cmText: "1970-01-01T00:00:00Z") == .absolute(Timestamp(milliseconds: 0)))
        #expect(CMValidity(cmText: "2024-02-29T00:00:00Z") == .absolute(Timestamp(milliseconds: 1_709_164_800_000)))
        #expect(CMValidity(cmText: "2000-03-01T00:00:00+00:00") == .absolute(Timestamp(milliseconds: 951_868_800_000)))
        #expect(CMValidity(cmText: "2025-02-29T00:00:00Z") == nil)
        #expect(CMValidity(cmText: "1900-02-29T00:00:00Z") == nil)
    }

    @Test("relative forms", arguments: [
        ("30m", Duration.seconds(1_800)), ("2h", .seconds(7_200)), ("1h30m", .seconds(5_400)), ("2d", .seconds(172_800)),
        ("45s", .seconds(45)), ("2H", .seconds(7_200)), (" 1d2h ", .seconds(93_600)),
    ])
    func relative(text: String, span: Duration) {
        #expect(CMValidity(cmText: text) == .relative(span))
    }

    @Test("refused forms", arguments: [
        "", "tomorrow", "2025-03-01T12:00:00", "2025-03-01 12:00:00", "2025-03-01", "2025-13-01T12:00:00Z",
        "2025-03-32T12:00:00Z", "2025-03-01T24:00:00Z", "2025-03-01T12:60:00Z", "2025-03-01T12:00:60Z",
        "2025-03-01T12:00:00+25:00", "2025-03-01T12:00:00+01:60", "2025-03-01T12:00:00.Z", "2025-3-1T12:00:00Z",
        "2025-03-01T12:00:00Zjunk", "0m", "0h0m", "30", "m30", "1.5h", "10ms", "1w", "-2h", "1h 30m", "99999999999999d",
    ])
    func refused(text: String) {
        #expect(CMValidity(cmText: text) == nil)
    }

    @Test("the caller resolves the deadline with its own now")
    func expiry() {
        let now = Timestamp(milliseconds: 1_000)
        #expect(CMValidity.relative(.seconds(90)).expiry(acceptedAt: now) == Timestamp(milliseconds: 91_000))
        #expect(CMValidity.relative(.microseconds(1)).expiry(acceptedAt: now) == Timestamp(milliseconds: 1_001))
        #expect(CMValidity.absolute(Self.noonUTC).expiry(acceptedAt: now) == Self.noonUTC)
    }
}
