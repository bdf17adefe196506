/// The mandatory fields `submit_sm` and `deliver_sm` share (§4.4.1, §4.6.1), and their optional
/// parameters. Address fields are ASCII text; `shortMessage` is the octets as sent (user data
/// header included when `esmClass` has 0x40).
struct SMPPShortMessage: Sendable, Hashable {
    var serviceType = ""
    var sourceTON: UInt8 = 0
    var sourceNPI: UInt8 = 0
    var source = ""
    var destinationTON: UInt8 = 0
    var destinationNPI: UInt8 = 0
    var destination = ""
    var esmClass: UInt8 = 0
    var protocolID: UInt8 = 0
    var priority: UInt8 = 0
    var scheduleDeliveryTime = ""
    var validityPeriod = ""
    var registeredDelivery: UInt8 = 0
    var replaceIfPresent: UInt8 = 0
    var dataCoding: UInt8 = 0
    var defaultMessageID: UInt8 = 0
    var shortMessage: [UInt8] = []
    var tlvs: [SMPPTLV] = []

    /// `esm_class` 0x40: `shortMessage` starts with a user data header.
    static let udhIndicator: UInt8 = 0x40
    /// `esm_class` message-type bits (xx1111xx) for an SMSC delivery receipt: xx0001xx.
    static let messageTypeMask: UInt8 = 0x3C
    static let deliveryReceiptType: UInt8 = 0x04

    /// True when the message-type bits say SMSC delivery receipt (not an intermediate notification
    /// or an SME acknowledgement, whose bits differ).
    var isDeliveryReceipt: Bool { esmClass & Self.messageTypeMask == Self.deliveryReceiptType }

    /// The first optional parameter with `tag`.
    func tlv(_ tag: SMPPTLV.Tag) -> SMPPTLV? { tlvs.first { $0.tag == tag } }

    func encode(into writer: inout SMPPWireWriter) {
        writer.cString(serviceType)
        writer.u8(sourceTON)
        writer.u8(sourceNPI)
        writer.cString(source)
        writer.u8(destinationTON)
        writer.u8(destinationNPI)
        writer.cString(destination)
        writer.u8(esmClass)
        writer.u8(protocolID)
        writer.u8(priority)
        writer.cString(scheduleDeliveryTime)
        writer.cString(validityPeriod)
        writer.u8(registeredDelivery)
        writer.u8(replaceIfPresent)
        writer.u8(dataCoding)
        writer.u8(defaultMessageID)
        writer.u8(UInt8(truncatingIfNeeded: shortMessage.count))
        writer.raw(shortMessage)
        for tlv in tlvs { writer.tlv(tlv) }
    }

    /// Field sizes are the specification's maxima (NUL included); a few SMSCs exceed the 21-octet
    /// address limit, so addresses accept up to 65 octets (the `deliver_sm` source limit in SMPP 5).
    static func decode(from reader: inout SMPPWireReader) throws(SMPPDecodingError) -> SMPPShortMessage {
        var message = SMPPShortMessage()
        message.serviceType = try reader.cString("service_type", maximum: 6)
        message.sourceTON = try reader.u8("source_addr_ton")
        message.sourceNPI = try reader.u8("source_addr_npi")
        message.source = try reader.cString("source_addr", maximum: 65)
        message.destinationTON = try reader.u8("dest_addr_ton")
        message.destinationNPI = try reader.u8("dest_addr_npi")
        message.destination = try reader.cString("destination_addr", maximum: 65)
        message.esmClass = try reader.u8("esm_class")
        message.protocolID = try reader.u8("protocol_id")
        message.priority = try reader.u8("priority_flag")
        message.scheduleDeliveryTime = try reader.cString("schedule_delivery_time", maximum: 17)
        message.validityPeriod = try reader.cString("validity_period", maximum: 17)
        message.registeredDelivery = try reader.u8("registered_delivery")
        message.replaceIfPresent = try reader.u8("replace_if_present_flag")
        message.dataCoding = try reader.u8("data_coding")
        message.defaultMessageID = try reader.u8("sm_default_msg_id")
        let length = try reader.u8("sm_length")
        message.shortMessage = try reader.octets(Int(length), "short_message")
        message.tlvs = try reader.tlvs()
        return message
    }
}
