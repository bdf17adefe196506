import Foundation
@testable import TandemAPI
import TandemCore

/// Shared test data: GUIDs, timestamps computed by Foundation (an implementation we did not write), and a
/// small stored list of messages with ties, case variants and non-ASCII senders.
enum Fixtures {
    static func guid(_ text: String) -> GUID {
        guard let guid = GUID(text) else { fatalError("bad test GUID \(text)") }
        return guid
    }

    static let g1 = guid("11111111-2dc9-45c4-aa58-a7f53e33c4f3")
    static let g2 = guid("22222222-01ca-43f3-8d07-d3d91a675f14")
    static let g3 = guid("33333333-aaaa-4bbb-8ccc-dddddddddddd")
    static let upperG3 = "33333333-AAAA-4BBB-8CCC-DDDDDDDDDDDD"

    /// Unix milliseconds of an ISO 8601 text, by Foundation's formatter.
    static func ms(_ iso: String) -> Timestamp {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = iso.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        guard let date = formatter.date(from: iso) else { fatalError("bad test date \(iso)") }
        return Timestamp(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    static let recipient: MSISDN = {
        guard let msisdn = MSISDN("0031612345678") else { fatalError("bad test MSISDN") }
        return msisdn
    }()

    static func message(_ n: Int, sender: String, body: String?, at iso: String, _ status: DeliveryStatus,
                        updateID: Int64? = nil) -> InboxMessage {
        let hex = String(format: "%08x", n)
        return InboxMessage(id: guid("\(hex)-0000-4000-8000-000000000000"), updateID: DeliveryKey(updateID ?? Int64(6_509_643_550 + n)),
                          recipient: recipient, sender: sender, body: body, dateTime: ms(iso), status: status)
    }

    /// Twelve messages; note the DateTime ties (3/4, 7/8/9), sender case variants (`CM`, `cm`), a sender
    /// with a quote, one with `+`, non-ASCII senders, and two messages without a body.
    static let stored: [InboxMessage] = [
        message(1, sender: "CM", body: "Your first message!", at: "2026-11-21T09:00:00.000Z", .delivered),
        message(2, sender: "cm", body: "lower-case sender", at: "2026-11-21T09:30:00.500Z", .sent),
        message(3, sender: "MyApp", body: nil, at: "2026-11-21T10:00:00.000Z", .accepted),
        message(4, sender: "MyApp", body: "tie on DateTime with 3", at: "2026-11-21T10:00:00.000Z", .failed),
        message(5, sender: "O'Reilly", body: "quote in sender", at: "2026-11-21T10:15:30.123Z", .rejected),
        message(6, sender: "a+b", body: "plus in sender", at: "2026-11-21T11:00:00.001Z", .cancelled),
        message(7, sender: "Ärzte", body: "non-ASCII sender", at: "2026-11-22T00:00:00.000Z", .delivered),
        message(8, sender: "Zeta", body: "tie 7/8/9", at: "2026-11-22T00:00:00.000Z", .delivered, updateID: 42),
        message(9, sender: "zeta", body: nil, at: "2026-11-22T00:00:00.000Z", .sent, updateID: 42),
        message(10, sender: "😀 Emoji", body: "emoji sender", at: "2025-12-31T23:59:59.999Z", .accepted),
        message(11, sender: "", body: "empty sender", at: "2026-01-01T00:00:00.000Z", .failed),
        message(12, sender: "3161", body: "numeric sender", at: "2027-03-01T12:00:00.000Z", .delivered),
    ]

    /// The stored message with the number used in ``message(_:sender:body:at:_:updateID:)``.
    static func numbers(_ messages: [InboxMessage]) -> [Int] {
        messages.map { Int($0.id.text.prefix(8), radix: 16) ?? -1 }
    }
}

/// A deterministic generator (SplitMix64), so that a failing random case replays from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Shorthand for building expected ASTs.
extension ODataExpression {
    static func status(_ op: ODataEqualityOperator, _ status: AppMessageStatus) -> ODataExpression {
        .comparison(.status(op, status))
    }
    static func sender(_ op: ODataOperator, _ text: String) -> ODataExpression { .comparison(.sender(op, text)) }
    static func updateID(_ op: ODataOperator, _ value: Int64) -> ODataExpression { .comparison(.updateID(op, value)) }
    static func dateTime(_ op: ODataOperator, _ iso: String) -> ODataExpression {
        .comparison(.dateTime(op, Fixtures.ms(iso)))
    }
    static func id(_ op: ODataOperator, _ guid: GUID) -> ODataExpression { .comparison(.id(op, guid)) }
}
