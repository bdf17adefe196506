/// The user data header a part of a concatenated SMS starts with (3GPP TS 23.040 §9.2.3.24.1):
/// `05 00 03 ref total seq` — header length 5, information element 0x00 (concatenation, 8-bit
/// reference), element length 3, then the reference shared by all parts, the number of parts, and this
/// part's number counting from 1. Sent with `esm_class` 0x40 (UDHI).
///
/// Not used: the 16-bit reference element (0x08, 7-octet header), which would leave one septet less per part.
enum SMPPUserDataHeader {
    static let concatenationLength = 6

    static func concatenation(reference: UInt8, total: UInt8, sequence: UInt8) -> [UInt8] {
        precondition(total >= 1 && sequence >= 1 && sequence <= total, "part \(sequence) of \(total)")
        return [0x05, 0x00, 0x03, reference, total, sequence]
    }
}
