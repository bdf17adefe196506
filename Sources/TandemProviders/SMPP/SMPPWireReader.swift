/// Reads SMPP fields from one PDU body, front to back. Every read checks the remaining length.
struct SMPPWireReader {
    private let bytes: [UInt8]
    private var index: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func u8(_ field: String) throws(SMPPDecodingError) -> UInt8 {
        guard index < bytes.count else { throw .truncated(field: field) }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16(_ field: String) throws(SMPPDecodingError) -> UInt16 {
        guard bytes.count - index >= 2 else { throw .truncated(field: field) }
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    mutating func u32(_ field: String) throws(SMPPDecodingError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw .truncated(field: field) }
        defer { index += 4 }
        return bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A C-octet string of at most `maximum` octets including its NUL, octets read as ISO 8859-1.
    mutating func cString(_ field: String, maximum: Int) throws(SMPPDecodingError) -> String {
        let limit = min(bytes.count, index + maximum)
        guard let nul = bytes[index..<limit].firstIndex(of: 0) else {
            throw limit == bytes.count && bytes.count - index < maximum ? .truncated(field: field) : .unterminated(field: field)
        }
        defer { index = nul + 1 }
        return String(bytes[index..<nul].map { Character(Unicode.Scalar($0)) })
    }

    mutating func octets(_ count: Int, _ field: String) throws(SMPPDecodingError) -> [UInt8] {
        guard bytes.count - index >= count else { throw .truncated(field: field) }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// The optional parameters that end a body (§3.2.4).
    mutating func tlvs() throws(SMPPDecodingError) -> [SMPPTLV] {
        var result: [SMPPTLV] = []
        while !isAtEnd {
            let tag = try u16("TLV tag")
            let length = try u16("TLV length")
            result.append(SMPPTLV(SMPPTLV.Tag(rawValue: tag), try octets(Int(length), "TLV value")))
        }
        return result
    }
}
