/// The character set an SMS is sent in, which fixes how much text fits in one part.
///
/// - `gsm7`: the GSM 03.38 (3GPP TS 23.038) default alphabet and its extension table, 7 bits per septet;
///   characters of the extension table take two septets (escape + character).
/// - `ucs2`: UTF-16 code units, two octets each, big-endian on the wire. Characters outside the Basic
///   Multilingual Plane (most emoji) take two units, as handsets send them; strict UCS-2 cannot carry them.
public enum SMSAlphabet: Sendable, Hashable, CaseIterable {
    case gsm7
    case ucs2

    /// Units that fit in a single-part message: 160 septets (140 octets × 8 / 7) or 70 UTF-16 units.
    public var singlePartCapacity: Int {
        switch self {
        case .gsm7: 160
        case .ucs2: 70
        }
    }

    /// Units per part of a concatenated message: 153 septets or 67 UTF-16 units, because the 6-octet user
    /// data header with an 8-bit reference number (`05 00 03 ref total seq`) takes the rest of the 140 octets.
    public var multipartCapacity: Int {
        switch self {
        case .gsm7: 153
        case .ucs2: 67
        }
    }

    /// The SMPP `data_coding` value: 0 (SMSC default alphabet) or 8 (UCS-2).
    ///
    /// Not guaranteed: that a given SMSC's default alphabet is GSM 03.38; a few treat 0 as Latin-1.
    public var dataCoding: UInt8 {
        switch self {
        case .gsm7: 0
        case .ucs2: 8
        }
    }
}
