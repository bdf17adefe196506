import Foundation
import Testing
@testable import TandemAPI
import TandemCore

@Suite("DateTime text agrees with Foundation's ISO 8601 formatter")
struct DateTimeTests {
    @Test("known instants format exactly", arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
    ])
    func known(milliseconds: Int64, text: String) throws {
        #expect(ISO8601.format(Timestamp(milliseconds: milliseconds)) == text)
        #expect(try ODataDateTime.parse(text) == Timestamp(milliseconds: milliseconds))
    }

    @Test("2000 random instants from 1900 to 2200: same text as Foundation, and parse back")
    func random() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SplitMix64(seed: 2026)
        let low: Int64 = -2_208_988_800_000  // 1900-01-01
        let span: UInt64 = 9_467_280_000_000  // 300 years
        for _ in 0..<2000 {
            let timestamp = Timestamp(milliseconds: low + Int64(generator.next() % span))
            let text = ISO8601.format(timestamp)
            let date = Date(timeIntervalSince1970: Double(timestamp.milliseconds) / 1000)
            #expect(text == formatter.string(from: date), "\(timestamp)")
            #expect(try ODataDateTime.parse(text) == timestamp)
        }
    }

    @Test("offsets and zone-less input", arguments: [
        ("2026-11-21T10:00:00", "2026-11-21T10:00:00Z"),
        ("2026-11-21T10:00:00+14:00", "2026-11-21T10:00:00+14:00"),
        ("2026-11-21T10:00:00.7-09:30", "2026-11-21T10:00:00.700-09:30"),
        ("2026-11-21T00:30:00 01:00", "2026-11-21T00:30:00+01:00"),
    ])
    func offsets(literal: String, iso: String) throws {
        #expect(try ODataDateTime.parse(literal) == Fixtures.ms(iso))
    }
}
