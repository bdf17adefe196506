/// An SMPP 3.4 `command_status` (§5.1.3), named as the specification names it (`ESME_RTHROTTLED`).
///
/// Not exhaustive: SMSCs return vendor codes (0x400–0x4FF) and codes from later versions; those
/// keep their number and print as hex.
public struct SMPPCommandStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let ok = Self(rawValue: 0x00)
    public static let invalidMessageLength = Self(rawValue: 0x01)
    public static let invalidCommandLength = Self(rawValue: 0x02)
    public static let invalidCommandID = Self(rawValue: 0x03)
    public static let incorrectBindStatus = Self(rawValue: 0x04)
    public static let alreadyBound = Self(rawValue: 0x05)
    public static let systemError = Self(rawValue: 0x08)
    public static let invalidSourceAddress = Self(rawValue: 0x0A)
    public static let invalidDestinationAddress = Self(rawValue: 0x0B)
    public static let invalidMessageID = Self(rawValue: 0x0C)
    public static let bindFailed = Self(rawValue: 0x0D)
    public static let invalidPassword = Self(rawValue: 0x0E)
    public static let invalidSystemID = Self(rawValue: 0x0F)
    public static let messageQueueFull = Self(rawValue: 0x14)
    public static let throttled = Self(rawValue: 0x58)
    public static let temporaryAppError = Self(rawValue: 0x64)
    public static let unknownError = Self(rawValue: 0xFF)

    /// The statuses that mean "not now" rather than "never": the SMSC is throttling this ESME or its
    /// queue is full. A submit that gets one is sent again after a back-off.
    public var isTransient: Bool { self == .throttled || self == .messageQueueFull }

    /// The specification's name (`ESME_RINVPASWD`), or `0x…` for a code it does not name.
    public var name: String {
        switch rawValue {
        case 0x00: "ESME_ROK"
        case 0x01: "ESME_RINVMSGLEN"
        case 0x02: "ESME_RINVCMDLEN"
        case 0x03: "ESME_RINVCMDID"
        case 0x04: "ESME_RINVBNDSTS"
        case 0x05: "ESME_RALYBND"
        case 0x06: "ESME_RINVPRTFLG"
        case 0x07: "ESME_RINVREGDLVFLG"
        case 0x08: "ESME_RSYSERR"
        case 0x0A: "ESME_RINVSRCADR"
        case 0x0B: "ESME_RINVDSTADR"
        case 0x0C: "ESME_RINVMSGID"
        case 0x0D: "ESME_RBINDFAIL"
        case 0x0E: "ESME_RINVPASWD"
        case 0x0F: "ESME_RINVSYSID"
        case 0x11: "ESME_RCANCELFAIL"
        case 0x13: "ESME_RREPLACEFAIL"
        case 0x14: "ESME_RMSGQFUL"
        case 0x15: "ESME_RINVSERTYP"
        case 0x33: "ESME_RINVNUMDESTS"
        case 0x34: "ESME_RINVDLNAME"
        case 0x40: "ESME_RINVDESTFLAG"
        case 0x42: "ESME_RINVSUBREP"
        case 0x43: "ESME_RINVESMCLASS"
        case 0x44: "ESME_RCNTSUBDL"
        case 0x45: "ESME_RSUBMITFAIL"
        case 0x48: "ESME_RINVSRCTON"
        case 0x49: "ESME_RINVSRCNPI"
        case 0x50: "ESME_RINVDSTTON"
        case 0x51: "ESME_RINVDSTNPI"
        case 0x53: "ESME_RINVSYSTYP"
        case 0x54: "ESME_RINVREPFLAG"
        case 0x55: "ESME_RINVNUMMSGS"
        case 0x58: "ESME_RTHROTTLED"
        case 0x61: "ESME_RINVSCHED"
        case 0x62: "ESME_RINVEXPIRY"
        case 0x63: "ESME_RINVDFTMSGID"
        case 0x64: "ESME_RX_T_APPN"
        case 0x65: "ESME_RX_P_APPN"
        case 0x66: "ESME_RX_R_APPN"
        case 0x67: "ESME_RQUERYFAIL"
        case 0xC0: "ESME_RINVOPTPARSTREAM"
        case 0xC1: "ESME_ROPTPARNOTALLWD"
        case 0xC2: "ESME_RINVPARLEN"
        case 0xC3: "ESME_RMISSINGOPTPARAM"
        case 0xC4: "ESME_RINVOPTPARAMVAL"
        case 0xFE: "ESME_RDELIVERYFAILURE"
        case 0xFF: "ESME_RUNKNOWNERR"
        default: "0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }

    /// The name and the number: `ESME_RINVPASWD (0x0000000E)`; just the number for an unnamed code.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        let padded = "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        return name.hasPrefix("0x") ? padded : "\(name) (\(padded))"
    }
}
