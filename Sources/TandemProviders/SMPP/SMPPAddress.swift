import TandemCore

/// An SMPP address: type of number, numbering plan indicator and the address text (§5.2.5, §5.2.6).
struct SMPPAddress: Sendable, Hashable {
    let ton: UInt8
    let npi: UInt8
    let address: String

    static let international: UInt8 = 1
    static let alphanumeric: UInt8 = 5
    static let isdn: UInt8 = 1
    static let unknownPlan: UInt8 = 0

    /// Why a sender cannot be an SMPP source address.
    enum SenderProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Alphanumeric senders carry at most 11 characters (TS 23.040's 11-septet limit).
        case alphanumericTooLong(Int)
        /// Alphanumeric senders are printable ASCII here (what every SMSC accepts in `source_addr`).
        case notPrintableASCII
        /// Numeric senders carry at most 20 digits (`source_addr` is 21 octets with its NUL).
        case numberTooLong(Int)

        var description: String {
            switch self {
            case .alphanumericTooLong(let count): "alphanumeric sender has \(count) characters; at most 11 fit"
            case .notPrintableASCII: "alphanumeric sender must be printable ASCII"
            case .numberTooLong(let count): "numeric sender has \(count) digits; at most 20 fit"
            }
        }
    }

    /// The recipient: international digits without `+`, TON 1 (international), NPI 1 (E.164).
    static func destination(_ msisdn: MSISDN) -> SMPPAddress {
        SMPPAddress(ton: international, npi: isdn, address: String(msisdn.digits))
    }

    /// The sender: digits (after an optional `+` or `00`, which are dropped) become an international
    /// number (TON 1, NPI 1); anything else is alphanumeric (TON 5, NPI 0). `ton` and `npi`, when given
    /// (`SMPPClient.Settings.sourceTON`/`sourceNPI`), replace the chosen values. An empty sender is sent
    /// empty with TON 0, NPI 0: the SMSC fills in the account's default.
    ///
    /// Not distinguished: short codes and national numbers, which also go out as TON 1 unless overridden.
    static func source(_ sender: String, ton: UInt8? = nil, npi: UInt8? = nil) throws(SenderProblem) -> SMPPAddress {
        let chosen: SMPPAddress
        if sender.isEmpty {
            chosen = SMPPAddress(ton: 0, npi: 0, address: "")
        } else if let digits = numericDigits(sender) {
            guard digits.count <= 20 else { throw .numberTooLong(digits.count) }
            chosen = SMPPAddress(ton: international, npi: isdn, address: digits)
        } else {
            guard sender.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { throw .notPrintableASCII }
            guard sender.utf8.count <= 11 else { throw .alphanumericTooLong(sender.utf8.count) }
            chosen = SMPPAddress(ton: alphanumeric, npi: unknownPlan, address: sender)
        }
        return SMPPAddress(ton: ton ?? chosen.ton, npi: npi ?? chosen.npi, address: chosen.address)
    }

    /// The digits of a numeric sender (`+31…`, `0031…`, `3197…`), or nil when it is not all digits.
    private static func numericDigits(_ sender: String) -> String? {
        var text = Substring(sender)
        if text.hasPrefix("+") {
            text = text.dropFirst()
        } else if text.hasPrefix("00") {
            text = text.dropFirst(2)
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return String(text)
    }
}
