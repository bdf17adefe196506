/// An SMPP 3.4 optional parameter (§5.3): a 16-bit tag, a 16-bit length and that many octets.
/// The value is kept as the octets received; the accessors read the common shapes.
struct SMPPTLV: Sendable, Hashable {
    let tag: Tag
    let value: [UInt8]

    init(_ tag: Tag, _ value: [UInt8]) {
        self.tag = tag
        self.value = value
    }

    /// A tag (§5.3.2). Unknown tags (vendor 0x1400–0x3FFF and others) decode and are ignored.
    struct Tag: RawRepresentable, Sendable, Hashable {
        let rawValue: UInt16
        init(rawValue: UInt16) { self.rawValue = rawValue }

        static let receiptedMessageID = Tag(rawValue: 0x001E)
        static let scInterfaceVersion = Tag(rawValue: 0x0210)
        static let networkErrorCode = Tag(rawValue: 0x0423)
        static let messagePayload = Tag(rawValue: 0x0424)
        static let messageState = Tag(rawValue: 0x0427)
    }

    /// The value as a C-octet string, without its terminating NUL (some SMSCs omit it). Octets are
    /// taken as ISO 8859-1, so nothing is lost for the ASCII ids SMSCs issue.
    var text: String {
        let end = value.firstIndex(of: 0) ?? value.endIndex
        return String(value[..<end].map { Character(Unicode.Scalar($0)) })
    }

    /// The value as an unsigned big-endian integer of 1, 2 or 4 octets; nil for other lengths.
    var integer: UInt32? {
        switch value.count {
        case 1, 2, 4: value.reduce(0) { $0 << 8 | UInt32($1) }
        default: nil
        }
    }
}
