// libFuzzer harness: bytes from an SMSC as the SMPP connection reads them: headers (`SMPPPDU.header`), whole PDUs
// (`SMPPPDU.decode`: deliver_sm, responses, TLVs) and the delivery receipt in a deliver_sm (`SMPPDeliveryReceipt`:
// TLVs, receipt text). Invariant: a decoded PDU encodes to bytes that decode to the same PDU. Built and run by
// scripts/fuzz.sh; not part of the SwiftPM package.
@testable import TandemProviders

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPPPDU(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput {
        let buffer = Array(UnsafeBufferPointer(start: data, count: size))
        var offset = 0
        while buffer.count - offset >= SMPPPDU.headerLength {
            guard let header = try? SMPPPDU.header(buffer[offset...]) else { break }
            guard buffer.count - offset >= Int(header.length) else { break }
            let body = Array(buffer[offset + SMPPPDU.headerLength..<offset + Int(header.length)])
            offset += Int(header.length)
            guard let pdu = try? SMPPPDU.decode(header: header, body: body) else { continue }
            let encoded = pdu.encoded()
            do {
                let again = try SMPPPDU.decode(encoded)
                guard again == pdu else { fatalError("round trip changed the PDU: \(pdu) → \(again)") }
            } catch {
                fatalError("\(pdu) encodes to bytes that do not decode: \(error)")
            }
            if case .deliverSM(let message) = pdu.body, case .success(let receipt)? = SMPPDeliveryReceipt.read(message) {
                _ = receipt.state.verdict
            }
        }
    }
}
