import Foundation
import Testing
@testable import TandemCore

@Suite("Timer deadlines")
struct TimerDeadlinesTests {
    static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds) }

    @Test("each kind is set, read and disarmed on its own; iteration follows TimerKind.allCases")
    func fieldsAndOrder() {
        var deadlines = TimerDeadlines()
        #expect(deadlines.isEmpty)
        for (index, kind) in TimerKind.allCases.reversed().enumerated() { deadlines[kind] = Self.at(Int64(100 + index)) }
        #expect(!deadlines.isEmpty)
        #expect(deadlines.map(\.kind) == TimerKind.allCases)
        for (index, kind) in TimerKind.allCases.reversed().enumerated() { #expect(deadlines[kind] == Self.at(Int64(100 + index))) }
        #expect(deadlines.removeValue(forKey: .noRead) == Self.at(102))
        #expect(deadlines.removeValue(forKey: .noRead) == nil)
        #expect(deadlines[.noRead] == nil)
        #expect(deadlines.map(\.kind) == [.noDeliveryAck, .lifetime, .smsValidity])
        deadlines[.noDeliveryAck] = nil
        deadlines[.lifetime] = nil
        deadlines[.smsValidity] = nil
        #expect(deadlines.isEmpty)
        #expect(deadlines == TimerDeadlines())
        // The epoch and negative times are deadlines like any other.
        deadlines[.lifetime] = Self.at(0)
        deadlines[.noRead] = Self.at(-5)
        #expect(deadlines == [.lifetime: Self.at(0), .noRead: Self.at(-5)])
    }

    @Test("encoded exactly as the dictionary it replaced, and decoded from it; an unknown kind is refused")
    func codableLikeADictionary() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let dictionary: [TimerKind: Timestamp] = [.noRead: Self.at(1_700_000_030_000), .smsValidity: Self.at(1_700_086_400_000)]
        let deadlines: TimerDeadlines = [.noRead: Self.at(1_700_000_030_000), .smsValidity: Self.at(1_700_086_400_000)]
        let encoded = try encoder.encode(deadlines)
        #expect(encoded == (try encoder.encode(dictionary)))
        #expect(try JSONDecoder().decode(TimerDeadlines.self, from: try encoder.encode(dictionary)) == deadlines)
        #expect(try JSONDecoder().decode(TimerDeadlines.self, from: Data("{}".utf8)) == TimerDeadlines())
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TimerDeadlines.self, from: Data(#"{"noRead":1,"soon":2}"#.utf8))
        }
    }
}
