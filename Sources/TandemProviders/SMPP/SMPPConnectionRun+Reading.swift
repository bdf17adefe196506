import TandemCore

extension SMPPConnectionRun {
    /// Reads what the socket has, handles every complete PDU, then answers the `deliver_sm` among them.
    mutating func read() {
        var ended: String?
        switch socket.receive(into: &scratch) {
        case .data(let count): buffer.append(contentsOf: scratch[..<count])
        case .none: break
        case .closed(let reason): ended = reason
        }
        let now = ContinuousClock.now
        var offset = 0
        while closeReason == nil, buffer.count - offset >= SMPPPDU.headerLength {
            let header: SMPPPDU.Header
            do {
                header = try SMPPPDU.header(buffer[offset...])
            } catch {
                closeReason = "unreadable PDU from the SMSC: \(error)"
                break
            }
            guard buffer.count - offset >= Int(header.length) else { break }
            let body = Array(buffer[offset + SMPPPDU.headerLength..<offset + Int(header.length)])
            offset += Int(header.length)
            do {
                perform(session.received(try SMPPPDU.decode(header: header, body: body), now: now))
            } catch {
                malformed(header, error)
            }
        }
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeFirst(offset)
        }
        if closeReason == nil, let ended { closeReason = ended }
        answerDeliveries()
    }

    /// A PDU whose header was fine but whose body was not: a request gets `generic_nack` and the
    /// connection goes on; a malformed response leaves its request unanswerable, so the connection ends.
    private mutating func malformed(_ header: SMPPPDU.Header, _ error: SMPPDecodingError) {
        logger.warning("malformed PDU from the SMSC", ["command": .string(header.commandID.description),
                                                       "error": .string(error.description)])
        if header.commandID.isResponse {
            closeReason = "malformed \(header.commandID): \(error)"
        } else {
            send(SMPPPDU(.genericNack, sequence: header.sequence, status: .invalidCommandLength).encoded())
        }
    }

    /// Reads the receipts among the `deliver_sm` just received, hands the final ones to the report
    /// handler, and answers every `deliver_sm` after the handler returned (so a report is durable before
    /// the SMSC forgets it). Mobile-originated messages and intermediate receipts are answered and dropped.
    private mutating func answerDeliveries() {
        guard !deliveries.isEmpty else { return }
        let batch = deliveries
        deliveries = []
        var reports: [SMSDeliveryReport] = []
        var mobileOriginated = 0
        for (message, _) in batch {
            switch SMPPDeliveryReceipt.read(message) {
            case nil:
                mobileOriginated += 1
                logger.debug("SMPP mobile-originated deliver_sm ignored")
            case .failure(let problem)?:
                logger.warning("SMPP delivery receipt unreadable; acknowledged and dropped",
                               ["problem": .string(problem.description)])
            case .success(let receipt)?:
                switch receipt.state.verdict {
                case .final(let outcome)?:
                    reports.append(SMSDeliveryReport(provider: settings.providerName, reference: receipt.messageID,
                                                     outcome: outcome, detail: receipt.detail))
                case .intermediate?, nil:
                    logger.debug("SMPP intermediate receipt", ["detail": .string(receipt.detail)])
                }
            }
        }
        let responses = Self.deliverSMResponses(to: batch.map(\.1), status: .ok)
        let handler = dispatcher.reportHandler
        let reported = handler == nil ? 0 : reports.count
        dispatcher.update { status in
            status.receiptsReported += reported
            status.mobileOriginatedIgnored += mobileOriginated
        }
        guard !reports.isEmpty, let handler else {
            if !reports.isEmpty {
                logger.warning("SMPP receipts dropped: no report handler", ["count": .int(Int64(reports.count))])
            }
            send(responses)
            return
        }
        let socket = self.socket
        let logger = self.logger
        let sequences = batch.map(\.1)
        Task {
            do {
                try await handler(reports)
                // If the connection ended meanwhile the SMSC sends the receipts again on the next one.
                _ = socket.send(responses)
            } catch {
                // Not recorded: a temporary error makes the SMSC deliver the receipts again later.
                logger.error("SMPP receipts not recorded; refused for redelivery",
                             ["count": .int(Int64(reports.count)), "error": .string("\(error)")])
                _ = socket.send(Self.deliverSMResponses(to: sequences, status: .temporaryAppError))
            }
        }
    }

    /// One `deliver_sm_resp` per sequence number, with `status`, in one buffer.
    private static func deliverSMResponses(to sequences: [UInt32], status: SMPPCommandStatus) -> [UInt8] {
        var writer = SMPPWireWriter(capacity: 17 * sequences.count)
        for sequence in sequences {
            SMPPPDU.appendFrame(.deliverSMResp, status: status, sequence: sequence, body: [0], to: &writer)
        }
        return writer.bytes
    }
}
