import TandemCore

/// A `message_state` (§5.2.28), as the `message_state` TLV carries it or as a receipt's `stat:` word
/// names it.
struct SMPPMessageState: RawRepresentable, Sendable, Hashable {
    let rawValue: UInt8
    init(rawValue: UInt8) { self.rawValue = rawValue }

    static let enroute = Self(rawValue: 1)
    static let delivered = Self(rawValue: 2)
    static let expired = Self(rawValue: 3)
    static let deleted = Self(rawValue: 4)
    static let undeliverable = Self(rawValue: 5)
    static let accepted = Self(rawValue: 6)
    static let unknown = Self(rawValue: 7)
    static let rejected = Self(rawValue: 8)

    /// What a receipt in this state means for the delivery.
    enum Verdict: Sendable, Hashable {
        /// The SMSC is done with the message.
        case final(SMSOutcome)
        /// Still on its way (`ENROUTE`, `ACCEPTD`): not reported.
        case intermediate
    }

    /// DELIVERED → delivered; EXPIRED → expired; DELETED, UNDELIVERABLE, UNKNOWN, REJECTED → failed;
    /// ENROUTE, ACCEPTED → intermediate. Nil for a state SMPP 3.4 does not define (0, 9 and up).
    var verdict: Verdict? {
        switch rawValue {
        case 2: .final(.delivered)
        case 3: .final(.expired)
        case 4, 5, 7, 8: .final(.failed)
        case 1, 6: .intermediate
        default: nil
        }
    }

    /// The seven-letter word receipts use (`DELIVRD`, Appendix B), or the number for others.
    var receiptWord: String {
        switch rawValue {
        case 1: "ENROUTE"
        case 2: "DELIVRD"
        case 3: "EXPIRED"
        case 4: "DELETED"
        case 5: "UNDELIV"
        case 6: "ACCEPTD"
        case 7: "UNKNOWN"
        case 8: "REJECTD"
        default: String(rawValue)
        }
    }

    /// The state a receipt's `stat:` word names, case-insensitively: the seven-letter forms of
    /// Appendix B and the full names some SMSCs write instead (`DELIVERED`, `UNDELIVERABLE`, …).
    init?(receiptWord word: String) {
        switch word.uppercased() {
        case "ENROUTE": self = .enroute
        case "DELIVRD", "DELIVERED": self = .delivered
        case "EXPIRED": self = .expired
        case "DELETED": self = .deleted
        case "UNDELIV", "UNDELIVERABLE": self = .undeliverable
        case "ACCEPTD", "ACCEPTED": self = .accepted
        case "UNKNOWN": self = .unknown
        case "REJECTD", "REJECTED": self = .rejected
        default: return nil
        }
    }
}
