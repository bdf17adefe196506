/// The GSM 03.38 default alphabet and its extension table (3GPP TS 23.038 §6.2.1), as lookup tables.
///
/// Only the mapping is here; packing septets into octets is the SMSC's business when `data_coding` is 0.
/// Not handled: national language shift tables (Turkish, Spanish, Portuguese, Indian scripts).
enum GSM7 {
    /// The escape septet that introduces an extension-table character.
    static let escape: UInt8 = 0x1B

    /// The basic table in code order (0x00 … 0x7F). 0x1B is the escape code, shown as a placeholder
    /// (U+FFFF) that no text contains, so a raw ESC character is never mistaken for it.
    static let basicTable: [Unicode.Scalar] = Array((
        "@£$¥èéùìòÇ\nØø\rÅå" + "Δ_ΦΓΛΩΠΨΣΘΞ\u{FFFF}ÆæßÉ" + " !\"#¤%&'()*+,-./" + "0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNO" + "PQRSTUVWXYZÄÖÑÜ§" + "¿abcdefghijklmno" + "pqrstuvwxyzäöñüà"
    ).unicodeScalars)

    /// The extension table: characters sent as ESC followed by this septet.
    static let extensionTable: [(scalar: Unicode.Scalar, septet: UInt8)] = [
        ("\u{0C}", 0x0A), ("^", 0x14), ("{", 0x28), ("}", 0x29), ("\\", 0x2F),
        ("[", 0x3C), ("~", 0x3D), ("]", 0x3E), ("|", 0x40), ("€", 0x65),
    ]

    /// Code for each scalar below U+0080: the basic septet, or `extensionFlag | septet`, or `absent`.
    private static let asciiCodes: [UInt8] = {
        var codes = [UInt8](repeating: absent, count: 128)
        for (code, scalar) in basicTable.enumerated() where scalar.value < 128 { codes[Int(scalar.value)] = UInt8(code) }
        for entry in extensionTable where entry.scalar.value < 128 {
            codes[Int(entry.scalar.value)] = extensionFlag | entry.septet
        }
        return codes
    }()

    /// The same for scalars at or above U+0080 (Latin-1 letters, Greek capitals, `€`).
    private static let otherCodes: [Unicode.Scalar: UInt8] = {
        var codes: [Unicode.Scalar: UInt8] = [:]
        for (code, scalar) in basicTable.enumerated() where scalar.value >= 128 && scalar != "\u{FFFF}" {
            codes[scalar] = UInt8(code)
        }
        for entry in extensionTable where entry.scalar.value >= 128 { codes[entry.scalar] = extensionFlag | entry.septet }
        return codes
    }()

    private static let absent: UInt8 = 0xFF
    private static let extensionFlag: UInt8 = 0x80

    /// The septets for one scalar: one for the basic table, two (ESC, code) for the extension table,
    /// none (nil) when GSM-7 cannot carry it.
    @inline(__always)
    static func append(_ scalar: Unicode.Scalar, to septets: inout [UInt8]) -> Bool {
        let code: UInt8
        if scalar.value < 128 {
            code = asciiCodes[Int(scalar.value)]
            if code == absent { return false }
        } else {
            guard let found = otherCodes[scalar] else { return false }
            code = found
        }
        if code & extensionFlag != 0 {
            septets.append(escape)
            septets.append(code & ~extensionFlag)
        } else {
            septets.append(code)
        }
        return true
    }
}
