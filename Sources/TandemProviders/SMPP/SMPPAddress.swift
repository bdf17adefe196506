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
        /// Alphanumeric senders are printable ISO 8859-1 here: `source_addr` carries one octet per
        /// character, which covers every GSM 03.38 basic character a CM sender may use.
        case notPrintableLatin1
        /// Numeric senders carry at most 20 digits (`source_addr` is 21 octets with its NUL).
        case numberTooLong(Int)

        var description: String {
            switch self {
            case .alphanumericTooLong(let count): "alphanumeric sender has \(count) characters; at most 11 fit"
            case .notPrintableLatin1: "alphanumeric sender must be printable ISO 8859-1 (one octet per character)"
            case .numberTooLong(let count): "numeric sender has \(count) digits; at most 20 fit"
            }
        }
    }

    /// The recipient: international digits without `+`, TON 1 (international), NPI 1 (E.164).
    static func destination(_ msisdn: MSISDN) -> SMPPAddress {
        SMPPAddress(ton: international, npi: isdn, address: String(msisdn.digits))
    }

    /// The sender: digits (after an optional `+` or `00`, which are dropped) become an international
    /// number (TON 1, NPI 1); anything else is alphanumeric (TON 5, NPI 0), at most 11 characters of
    /// printable ISO 8859-1, written one octet per character (`ACME corp.`, `Zürich`: `ü` is 0xFC). The SMSC
    /// turns them into the GSM 7-bit address of the SMS; SMPP 3.4 leaves `source_addr`'s character set to it,
    /// and ISO 8859-1 is the common reading (ASCII, which every SMSC takes, is the same in it). `ton` and `npi`, when given
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
            guard sender.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) || (0xA0...0xFF).contains($0.value) }) else {
                throw .notPrintableLatin1
            }
            let count = sender.unicodeScalars.count
            guard count <= 11 else { throw .alphanumericTooLong(count) }
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
