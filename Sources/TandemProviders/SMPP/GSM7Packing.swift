/// Packs GSM 03.38 septets into octets as 3GPP TS 23.038 §6.1.2.1.1 lays them out: septet *n* starts
/// at bit 7·*n*, least significant bit first, so eight septets fill seven octets.
///
/// Example: "hellohello" is the septets 68 65 6C 6C 6F 68 65 6C 6C 6F, packed E8 32 9B FD 46 97 D9 EC 37.
///
/// SMPP normally carries `data_coding` 0 unpacked, one septet per octet, and the SMSC packs; this is used
/// only when `SMPPClient.Settings.gsm7Packed` says the SMSC expects packed octets. Not done: the
/// carriage-return padding TS 23.038 suggests when seven spare bits end the last octet (a handset may
/// show a trailing `@` for a text of 8·*k* − 1 septets).
enum GSM7Packing {
    /// `septets` (each below 0x80) packed, after `fillBits` zero bits (0…6). With a user data header of
    /// *h* octets the septets start on the next septet boundary: `fillBits = (7 − (8·h) mod 7) mod 7`,
    /// 1 bit for the 6-octet concatenation header; the result then follows the header's octets.
    static func pack(_ septets: [UInt8], fillBits: Int = 0) -> [UInt8] {
        precondition((0...6).contains(fillBits), "fill bits are 0…6")
        var octets: [UInt8] = []
        octets.reserveCapacity((septets.count * 7 + fillBits + 7) / 8)
        var accumulator: UInt32 = 0
        var bits = fillBits
        for septet in septets {
            accumulator |= UInt32(septet & 0x7F) << UInt32(bits)
            bits += 7
            while bits >= 8 {
                octets.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                bits -= 8
            }
        }
        if bits > 0 { octets.append(UInt8(accumulator & 0xFF)) }
        return octets
    }

    /// The fill bits that align septets after a user data header of `headerOctets` octets.
    static func fillBits(afterHeaderOctets headerOctets: Int) -> Int {
        (7 - (headerOctets * 8) % 7) % 7
    }

    /// The septets in `octets` (the inverse of `pack` for `count` septets), for tests and tools.
    static func unpack(_ octets: [UInt8], count: Int, fillBits: Int = 0) -> [UInt8] {
        var septets: [UInt8] = []
        septets.reserveCapacity(count)
        for index in 0..<count {
            let bit = fillBits + index * 7
            let low = UInt16(octets[bit / 8])
            let high = bit / 8 + 1 < octets.count ? UInt16(octets[bit / 8 + 1]) : 0
            septets.append(UInt8(((high << 8 | low) >> UInt16(bit % 8)) & 0x7F))
        }
        return septets
    }
}
