/// Appends SMPP fields to a byte buffer: big-endian integers and C-octet strings (§3.1).
struct SMPPWireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    mutating func u32(_ value: UInt32) {
        bytes.append(UInt8(value >> 24))
        bytes.append(UInt8(value >> 16 & 0xFF))
        bytes.append(UInt8(value >> 8 & 0xFF))
        bytes.append(UInt8(value & 0xFF))
    }

    /// The string's characters as ISO 8859-1 octets (as `SMPPWireReader.cString` reads them, so a decoded PDU
    /// encodes back to its bytes) and a NUL. Callers check lengths and characters beforehand: SMPP C-octet
    /// strings are ASCII, a character beyond U+00FF is written as `?`, and a NUL inside `text` would end the
    /// field early.
    mutating func cString(_ text: String) {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            bytes.append(contentsOf: text.utf8)
        } else {
            for scalar in text.unicodeScalars { bytes.append(scalar.value <= 0xFF ? UInt8(scalar.value) : UInt8(ascii: "?")) }
        }
        bytes.append(0)
    }

    mutating func raw(_ octets: [UInt8]) { bytes.append(contentsOf: octets) }

    mutating func tlv(_ tlv: SMPPTLV) {
        u16(tlv.tag.rawValue)
        u16(UInt16(truncatingIfNeeded: tlv.value.count))
        raw(tlv.value)
    }
}
