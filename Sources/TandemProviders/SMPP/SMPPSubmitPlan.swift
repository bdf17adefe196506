import TandemCore

/// Turns one SMS into the `submit_sm` PDUs that carry it: pure, so every byte can be checked in tests.
///
/// - Alphabet: GSM 03.38 with its extension table when the whole text fits (`data_coding` 0), else
///   UCS-2 (`data_coding` 8); `forceUCS2` (CM's `dcs` 8) always gives UCS-2. Cut by `SMSText.split`.
/// - GSM-7 goes unpacked (one septet per octet, ESC before extension characters) unless `gsm7Packed`.
/// - A text of more than one part: each part starts with the 6-octet concatenation header
///   (`SMPPUserDataHeader`, reference `reference`) and has `esm_class` 0x40.
/// - Addresses from `SMPPAddress`; `validity_period` relative (`SMPPValidityPeriod`).
///
/// Not guaranteed: that the SMSC's `data_coding` 0 is GSM 03.38 (a few use Latin-1).
enum SMPPSubmitPlan {
    /// What every part shares apart from text and addresses.
    struct Options: Sendable, Hashable {
        var registeredDelivery: UInt8 = 1
        var gsm7Packed = false
        var sourceTON: UInt8?
        var sourceNPI: UInt8?
        var serviceType = ""
    }

    enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case sender(SMPPAddress.SenderProblem)
        /// More parts than an 8-bit concatenation header counts (255).
        case tooManyParts(Int)

        var description: String {
            switch self {
            case .sender(let problem): "invalid sender: \(problem)"
            case .tooManyParts(let count): "text needs \(count) SMS parts; at most 255 can be concatenated"
            }
        }
    }

    static let maximumParts = 255

    static func parts(sender: String, recipient: MSISDN, body: String, forceUCS2: Bool, validity: Duration,
                      reference: UInt8, options: Options) throws(Problem) -> [SMPPShortMessage] {
        let source: SMPPAddress
        do {
            source = try SMPPAddress.source(sender, ton: options.sourceTON, npi: options.sourceNPI)
        } catch {
            throw .sender(error)
        }
        let destination = SMPPAddress.destination(recipient)
        let alphabet = SMSText.segmentation(of: body, forceUCS2: forceUCS2).alphabet
        // `split` is nil only for GSM-7 text that is not GSM-7, which `segmentation` never chose.
        let payloads = SMSText.split(body, alphabet: alphabet) ?? SMSText.split(body, alphabet: .ucs2) ?? [[]]
        guard payloads.count <= maximumParts else { throw .tooManyParts(payloads.count) }

        var template = SMPPShortMessage()
        template.serviceType = options.serviceType
        template.sourceTON = source.ton
        template.sourceNPI = source.npi
        template.source = source.address
        template.destinationTON = destination.ton
        template.destinationNPI = destination.npi
        template.destination = destination.address
        template.validityPeriod = SMPPValidityPeriod.relative(validity)
        template.registeredDelivery = options.registeredDelivery
        template.dataCoding = alphabet.dataCoding

        let packed = options.gsm7Packed && alphabet == .gsm7
        guard payloads.count > 1 else {
            var message = template
            message.shortMessage = packed ? GSM7Packing.pack(payloads[0]) : payloads[0]
            return [message]
        }
        let total = UInt8(payloads.count)
        let fill = GSM7Packing.fillBits(afterHeaderOctets: SMPPUserDataHeader.concatenationLength)
        return payloads.enumerated().map { index, payload in
            var message = template
            message.esmClass = SMPPShortMessage.udhIndicator
            message.shortMessage = SMPPUserDataHeader.concatenation(reference: reference, total: total,
                                                                    sequence: UInt8(index + 1))
                + (packed ? GSM7Packing.pack(payload, fillBits: fill) : payload)
            return message
        }
    }
}
