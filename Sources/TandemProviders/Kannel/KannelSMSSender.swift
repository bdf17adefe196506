import TandemCore
import TandemCrypto

/// Sends SMS and PINs through an existing Kannel, over smsbox's HTTP `sendsms` interface (`GET`, the
/// parameters in the query: `username, password, from, to, text, coding, charset, validity, smsc, dlr-mask,
/// dlr-url`), so Tandem can sit in front of it.
///
/// Kannel's sendsms answers with no message id, so Tandem makes its own reference per message (16 random
/// hex digits) and puts it into the `dlr-url` beside Kannel's escape codes; the DLR endpoint
/// (`KannelDLREndpoint` in TandemAPI) reads it back. Each message is ONE sendsms request — Kannel splits a
/// long text itself — and so has ONE reference, although Kannel then calls the dlr-url once per part with
/// that same reference: the engine sees several reports for one reference and lets the first final one
/// decide.
///
/// - HTTP 202 (`0: Accepted for delivery`, `3: Queued for later delivery`) → `.submitted(references: [ref])`.
/// - Any other answer → `.rejected` with the status and Kannel's text (`403 Authorization failed for sendsms`).
/// - No connection at all → tried again (`connectAttempts`), then `.rejected`; a timeout is not retried.
///
/// At most `connections` requests are on the wire at once (the HTTP client keeps as many connections); the
/// rest wait in a ``RequestGate``, PINs before queued SMS, and the timeout counts only once a request is sent.
/// So a burst of bulk SMS neither times out in a queue nor holds up a PIN.
///
/// PINs (`sendPIN`) go the same way with `dlr-mask=0`: no report is asked for. Neither the text nor the PIN
/// is ever logged; numbers are logged masked. Not guaranteed: that a request which timed out was not sent
/// by Kannel (the SMS may still arrive; the delivery is failed all the same); that Kannel keeps the dlr-url
/// across its own restarts (that depends on its `dlr-storage`).
public final class KannelSMSSender: SMSSender, PinSender {
    let settings: Settings
    private let client: HTTPClient
    private let logger: Logger
    private let makeReference: @Sendable () -> String
    private let gate: RequestGate

    public var providerName: String { settings.providerName }

    /// `makeReference` makes each message's reference (default: 16 random hex digits); it must give
    /// URL-safe text (`A–Z a–z 0–9 - . _ ~`), unique per message.
    public init(settings: Settings, client: HTTPClient, logger: Logger = .discarding,
                makeReference: @escaping @Sendable () -> String = { Digest.hex(SecureRandom.bytes(8)) })
        throws(KannelSettingsError) {
        if let problem = settings.validationProblem() { throw problem }
        self.settings = settings
        self.client = client
        self.logger = logger
        self.makeReference = makeReference
        self.gate = RequestGate(capacity: settings.connections)
    }

    public func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        let reference = makeReference()
        let query = Self.sendSMSQuery(settings: settings, from: sms.content.sender, to: sms.msisdn, text: sms.content.body,
                                      forceUCS2: sms.content.forceUCS2, validity: sms.validity, reference: reference)
        switch await send(query, lane: .bulk) {
        case .accepted:
            logger.debug("kannel accepted an SMS", ["delivery": .int(sms.key.rawValue), "reference": .string(reference),
                                                     "msisdn": .msisdn(sms.msisdn)])
            return .submitted(references: [reference])
        case .refused(let reason):
            logger.warning("kannel refused an SMS", ["delivery": .int(sms.key.rawValue), "msisdn": .msisdn(sms.msisdn),
                                                      "reason": .string(reason)])
            return .rejected(reason: reason)
        }
    }

    public func sendPIN(_ message: PinMessage) async throws(PinDeliveryError) {
        let query = Self.sendSMSQuery(settings: settings, from: message.sender, to: message.msisdn, text: message.text,
                                      forceUCS2: false, validity: nil, reference: nil)
        switch await send(query, lane: .urgent) {
        case .accepted:
            return
        case .refused(let reason):
            let safe = message.pin.count >= 3 ? reason.replacing(message.pin, with: "****") : reason
            logger.warning("kannel refused a PIN SMS", ["msisdn": .msisdn(message.msisdn), "reason": .string(safe)])
            throw PinDeliveryError(safe)
        }
    }

    private enum Answer {
        case accepted
        case refused(String)
    }

    private func send(_ query: String, lane: RequestGate.Lane) async -> Answer {
        do {
            return try await gate.run(lane) { await sendNow(query) }
        } catch {
            return .refused("cancelled")
        }
    }

    private func sendNow(_ query: String) async -> Answer {
        let request = HTTPClientRequest(method: .get, url: url(query: query), timeout: settings.timeout, version: .http1_1)
        var delay = settings.retryDelay
        for attempt in 1...settings.connectAttempts {
            do {
                let response = try await client.send(request)
                if response.status == 202 { return .accepted }
                return .refused("Kannel answered HTTP \(response.status): \(response.bodyExcerpt())")
            } catch .connectFailed(let message) where attempt < settings.connectAttempts {
                logger.warning("kannel unreachable; trying again", ["attempt": .int(Int64(attempt)), "error": .string(message)])
                do { try await Task.sleep(for: delay) } catch { return .refused("cancelled") }
                delay = delay * 2
            } catch {
                return .refused("Kannel unreachable: \(error)")
            }
        }
        return .refused("Kannel unreachable")
    }
}
