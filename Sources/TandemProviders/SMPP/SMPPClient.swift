import TandemCore

/// SMS over SMPP 3.4 with Tandem as the ESME: `bind_transceiver` sessions to one SMSC account, each on
/// its own thread (a poll loop; no thread per submit), behind an async API.
///
/// - `submit(_:)` cuts the text into parts (`SMPPSubmitPlan`: GSM-7 or UCS-2, concatenation headers),
///   queues them for whichever bind has room in its window and rate, and returns the parts' message ids
///   once every part has `submit_sm_resp` OK — or `.rejected` at the first permanent refusal, when no bind
///   had room within the allowed wait, or when cancelled before its parts were written.
/// - `ESME_RTHROTTLED`/`ESME_RMSGQFUL`: the part is written again after a back-off. A lost connection:
///   parts without a `submit_sm_resp` are written again on the next bind; parts with one never are.
/// - Delivery receipts (`deliver_sm`) become `SMSDeliveryReport`s for the handler set with `onReport`,
///   one per part; `deliver_sm_resp` goes out after the handler returns.
/// - Bind failures (wrong password, SMSC down) are logged with the SMPP status and retried with a jittered
///   back-off; `status.lastBindError` keeps the latest.
///
/// Not guaranteed: exactly-once submission — a part whose `submit_sm_resp` was lost with the connection is
/// sent again, and the SMSC may deliver it twice; ordering between SMS or between the parts of one SMS.
/// Not done: TLS, `bind_transmitter`/`bind_receiver` pairs, `message_payload`, `submit_multi`, SAR TLVs,
/// 16-bit concatenation references, mobile-originated messages (acknowledged and dropped).
public final class SMPPClient: SMSSender, PinSender {
    public let settings: Settings
    private let dispatcher: SMPPDispatcher
    private let logger: Logger

    public var providerName: String { settings.providerName }

    /// Checks `settings`; does not connect (see `start()`).
    public init(settings: Settings, logger: Logger = .discarding) throws(SMPPClientError) {
        try settings.validate()
        self.settings = settings
        self.logger = logger.with(["component": "smpp"])
        dispatcher = try SMPPDispatcher(settings: settings, logger: self.logger)
    }

    deinit {
        // Does not wait: the threads reject what is queued, unbind as in `shutdown()`, and exit.
        dispatcher.abandon()
    }

    /// Where delivery reports go. Set it before `start()`: receipts arriving without a handler are
    /// acknowledged and lost.
    public func onReport(_ handler: @escaping SMSReportHandler) {
        dispatcher.setReportHandler(handler)
    }

    /// Starts the bind threads, which connect and bind in the background; returns at once. Submits made
    /// before a bind is up wait for it (within their allowed wait). Idempotent; does nothing after shutdown.
    public func start() {
        guard dispatcher.markStarted() else { return }
        for index in 0..<settings.binds {
            do {
                try SMPPBindLoop(index: index, dispatcher: dispatcher).startThread()
            } catch {
                logger.error("SMPP bind thread failed to start", ["error": .string(error.description)])
                dispatcher.threadFailedToStart()
            }
        }
        logger.info("SMPP client starting", ["smsc": .string(settings.description)])
    }

    /// Refuses new submits and rejects waiting ones, waits up to `shutdownGrace` for responses to parts in
    /// flight, sends `unbind` on every bind, waits for `unbind_resp` (up to `responseTimeout`), closes,
    /// and returns once every bind thread has exited. Parts still without a response at the close are
    /// rejected (the SMSC may have taken them). A TCP connect in progress is not interrupted: it finishes or
    /// times out (`connectTimeout`) first. Safe to call more than once.
    public func shutdown() async {
        await dispatcher.stop()
    }

    public var status: Status { dispatcher.status }

    // MARK: Submitting

    public func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        await submit(sender: sms.content.sender, recipient: sms.msisdn, body: sms.content.body,
                     forceUCS2: sms.content.forceUCS2, validity: sms.validity,
                     registeredDelivery: settings.registeredDelivery)
    }

    /// A PIN goes as a single ordinary SMS without a receipt (`registered_delivery` 0), valid for
    /// `pinValidity`. Never logs the text.
    public func sendPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        let result = await submit(sender: message.sender, recipient: message.msisdn, body: message.text,
                                  forceUCS2: false, validity: settings.pinValidity, registeredDelivery: 0)
        switch result {
        case .submitted:
            return
        case .rejected(let reason):
            throw PinDeliveryError(reason)
        }
    }

    private func submit(sender: String, recipient: MSISDN, body: String, forceUCS2: Bool, validity: Duration,
                        registeredDelivery: UInt8) async -> SMSSubmitResult {
        if Task.isCancelled { return .rejected(reason: "cancelled before submitting") }
        var options = SMPPSubmitPlan.Options()
        options.registeredDelivery = registeredDelivery
        options.gsm7Packed = settings.gsm7Packed
        options.sourceTON = settings.sourceTON
        options.sourceNPI = settings.sourceNPI
        options.serviceType = settings.serviceType
        let messages: [SMPPShortMessage]
        do {
            messages = try SMPPSubmitPlan.parts(sender: sender, recipient: recipient, body: body, forceUCS2: forceUCS2,
                                                validity: validity, reference: dispatcher.nextReference(),
                                                options: options)
        } catch {
            logger.warning("SMS not submittable over SMPP", ["to": .msisdn(recipient), "problem": .string(error.description)])
            return .rejected(reason: error.description)
        }
        let allowed = validity > .zero ? validity : .seconds(60)
        let wait = min(allowed, settings.maximumQueueWait ?? allowed)
        let submission = SMPPSubmission(partCount: messages.count, deadline: .now + wait)
        let parts = messages.enumerated().map { index, message in
            SMPPPart(submission: submission, index: index, body: SMPPPDU(.submitSM(message), sequence: 0).encodedBody())
        }
        let dispatcher = self.dispatcher
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SMSSubmitResult, Never>) in
                submission.attach(continuation)
                if !dispatcher.enqueue(parts) { submission.reject("SMPP client is shut down") }
            }
        } onCancel: {
            // Parts not yet written are skipped; parts already written stay with the SMSC.
            submission.reject("cancelled")
        }
    }
}
