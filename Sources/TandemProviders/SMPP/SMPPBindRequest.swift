/// The body of `bind_transceiver` (§4.1.5). Lengths are checked by `SMPPClient.Settings`:
/// system id ≤ 15, password ≤ 8, system type ≤ 12 ASCII characters.
struct SMPPBindRequest: Sendable, Hashable {
    var systemID: String
    var password: String
    var systemType: String
    var interfaceVersion: UInt8 = 0x34
    var addressTON: UInt8 = 0
    var addressNPI: UInt8 = 0
    var addressRange = ""

    func encode(into writer: inout SMPPWireWriter) {
        writer.cString(systemID)
        writer.cString(password)
        writer.cString(systemType)
        writer.u8(interfaceVersion)
        writer.u8(addressTON)
        writer.u8(addressNPI)
        writer.cString(addressRange)
    }

    static func decode(from reader: inout SMPPWireReader) throws(SMPPDecodingError) -> SMPPBindRequest {
        var request = SMPPBindRequest(systemID: try reader.cString("system_id", maximum: 16),
                                      password: try reader.cString("password", maximum: 9),
                                      systemType: try reader.cString("system_type", maximum: 13))
        request.interfaceVersion = try reader.u8("interface_version")
        request.addressTON = try reader.u8("addr_ton")
        request.addressNPI = try reader.u8("addr_npi")
        request.addressRange = try reader.cString("address_range", maximum: 41)
        return request
    }
}

extension SMPPBindRequest: CustomStringConvertible {
    /// Without the password.
    var description: String { "bind_transceiver(system_id: \(systemID), system_type: \(systemType))" }
}
