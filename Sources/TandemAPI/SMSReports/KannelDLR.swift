import TandemCore

/// One of Kannel's DLR callbacks, as the DLR endpoint reads it from the dlr-url Tandem gave Kannel:
/// `?ref=<reference>&type=%d&reply=%A&time=%T&to=%p[&token=…]` (see `KannelSMSSender`).
public struct KannelDLR: Sendable, Hashable {
    /// Tandem's own reference for the message (Kannel's sendsms gives none).
    public let reference: String
    /// Kannel's DLR type (`%d`): 1 delivered, 2 undelivered, 4 queued on the SMSC, 8 accepted by the SMSC,
    /// 16 refused by the SMSC (Kannel's `gw/dlr.h`).
    public let type: Int
    /// The SMSC's reply (`%A`): an SMPP receipt's text (`id:… stat:DELIVRD err:000 …`), or Kannel's
    /// `ACK/`/`NACK/…` words for types 8 and 16; nil when absent or empty.
    public let reply: String?

    public init(reference: String, type: Int, reply: String?) {
        self.reference = reference
        self.type = type
        self.reply = reply
    }

    /// What the report means for the delivery.
    public enum Meaning: Sendable, Hashable {
        /// A final state to report.
        case final(SMSOutcome)
        /// Queued or accepted by the SMSC: nothing to report yet.
        case intermediate
    }

    /// Kannel's type decides, its bits read in this order (Kannel sends one at a time):
    ///
    /// | type | Kannel | meaning |
    /// |---|---|---|
    /// | 1 | `DLR_SUCCESS` — delivered to the phone | `.final(.delivered)` |
    /// | 16 | `DLR_SMSC_FAIL` — the SMSC refused it (nack) | `.final(.failed)` |
    /// | 2 | `DLR_FAIL` — not delivered to the phone | `.final(.expired)` when the reply says `stat:EXPIRED`, else `.final(.failed)` |
    /// | 4 | `DLR_BUFFERED` — queued on the SMSC | `.intermediate` |
    /// | 8 | `DLR_SMSC_SUCCESS` — the SMSC took it (ack) | `.intermediate` |
    ///
    /// Nil for a type with none of these bits (0, or a value Kannel does not send).
    public var meaning: Meaning? {
        if type & 1 != 0 { return .final(.delivered) }
        if type & 16 != 0 { return .final(.failed) }
        if type & 2 != 0 { return .final(replySaysExpired ? .expired : .failed) }
        if type & (4 | 8) != 0 { return .intermediate }
        return nil
    }

    /// Whether the SMSC's receipt says `stat:EXPIRED` (ASCII case ignored).
    var replySaysExpired: Bool {
        guard let reply else { return false }
        return reply.uppercased().contains("STAT:EXPIRED")
    }

    /// For the delivery's event log: the type and the receipt without its `text:` field (an SMPP receipt
    /// quotes the first characters of the message, which the event log does not keep).
    public var detail: String {
        guard var reply, !reply.isEmpty else { return "kannel type \(type)" }
        if let text = reply.firstRange(of: "text:") ?? reply.firstRange(of: "Text:") ?? reply.firstRange(of: "TEXT:") {
            reply = String(reply[..<text.lowerBound])
        }
        reply = reply.trimmingASCIISpaces()
        if reply.count > 160 { reply = String(reply.prefix(160)) + "…" }
        return reply.isEmpty ? "kannel type \(type)" : "kannel type \(type): \(reply)"
    }
}
