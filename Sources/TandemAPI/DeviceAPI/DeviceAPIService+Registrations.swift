import TandemCore
import TandemHTTP

/// `/v1.0/deviceregistrations`: create, read, update, reset, and the PIN by voice call.
extension DeviceAPIService {
    /// What one registration change did to the verification.
    struct Step: Sendable, Hashable {
        var effect: VerificationEffect = .none
        var outcome: VerificationOutcome?
    }

    /// `POST /v1.0/deviceregistrations`: a new install, optionally with its push token and number (which
    /// sends the PIN). A `VerificationCode` is ignored here: no PIN can have been sent yet.
    public func create(_ request: Request) async -> Response {
        do throws(Refusal) {
            let caller = try await authenticate(request)
            var changes = try decode { () throws(DeviceAPICodec.Problem) in try DeviceAPICodec.registrationChanges(request.body) }
            try decode { () throws(DeviceAPICodec.Problem) in try DeviceAPICodec.checkPushToken(changes, platform: caller.platform) }
            changes.verificationCode = nil
            let current = now()
            if case .limited(let wait) = limits.chargeRegistration(app: caller.app.key, clientIP: caller.clientIP, now: current) {
                protection.registrationsLimited.increment()
                logger.warning("registration refused by a registration limit", ["app": .string(caller.app.key.text)])
                throw Refusal.limited(wait, "new registrations")
            }
            var generator = SystemRandomNumberGenerator()
            var registration = DeviceRegistration(
                deviceID: .random(using: &generator), app: caller.app.key, platform: caller.platform,
                userAgent: caller.userAgent, pushToken: nil, notificationsEnabled: true, verification: Verification(),
                createdAt: current, updatedAt: current)
            let step = apply(changes, to: &registration, app: caller.app, now: current, nonce: PinCodec.newNonce())
            try await charge(step, caller: caller, now: current)
            try await writing { try await registry.create(registration) }
            logger.info("device registered", ["deviceID": .string(registration.deviceID.text), "app": .string(caller.app.key.text),
                                              "platform": .string(registration.platform.wireName)])
            try await perform(step.effect, caller: caller)
            return Response.json(.ok, DeviceAPICodec.registration(registration, appName: caller.app.name))
        } catch {
            return error.response
        }
    }

    /// `GET /v1.0/deviceregistrations`.
    public func show(_ request: Request) async -> Response {
        do throws(Refusal) {
            let caller = try await authenticate(request)
            let registration = try await device(request, caller: caller)
            return Response.json(.ok, DeviceAPICodec.registration(registration, appName: caller.app.name))
        } catch {
            return error.response
        }
    }

    /// `PUT /v1.0/deviceregistrations`: any of `PushToken`, `NotificationsEnabled`, `Development`, `Msisdn` (a number not
    /// yet verified gets a PIN by SMS; the same unverified number again resends the PIN while it is
    /// valid) and `VerificationCode`, applied in that order.
    public func update(_ request: Request) async -> Response {
        do throws(Refusal) {
            let caller = try await authenticate(request)
            let existing = try await device(request, caller: caller)
            let changes = try decode { () throws(DeviceAPICodec.Problem) in try DeviceAPICodec.registrationChanges(request.body) }
            try decode { () throws(DeviceAPICodec.Problem) in try DeviceAPICodec.checkPushToken(changes, platform: caller.platform) }
            let current = now()
            let nonce = PinCodec.newNonce()
            let app = caller.app
            // A dry run on the registration as read decides what to charge to the abuse limits before
            // anything is stored: a refused request changes nothing.
            var preview = existing
            try await charge(apply(changes, to: &preview, app: app, now: current, nonce: nonce), caller: caller, now: current)
            if changes.verificationCode != nil, case .limited(let wait) = limits.chargeVerification(clientIP: caller.clientIP, now: current) {
                throw Refusal.limited(wait, "PIN attempts from this address")
            }
            let result = try await writing {
                try await registry.update(existing.deviceID) { registration in
                    let step = self.apply(changes, to: &registration, app: app, now: current, nonce: nonce)
                    return (registration, step)
                }
            }
            guard let (registration, step) = result else { throw Refusal(.badRequest, "the DeviceID is not known for this app") }
            if case .noPINRequested = step.outcome, registration.status != .pinVerified {
                throw Refusal(.badRequest, "no PIN was sent to this registration: set Msisdn first")
            }
            if let outcome = step.outcome {
                logger.info("verification code checked", ["deviceID": .string(registration.deviceID.text),
                                                           "outcome": .string(Self.describe(outcome))])
                if case .verified = outcome, let number = registration.msisdn {
                    limits.recordVerified(app: caller.app.key, msisdn: number, now: current)
                    deliveryMetrics.pinVerified()
                }
            }
            try await perform(step.effect, caller: caller)
            return Response.json(.ok, DeviceAPICodec.registration(registration, appName: caller.app.name))
        } catch {
            return error.response
        }
    }

    /// `DELETE /v1.0/deviceregistrations`: a SIM change — the number and any PIN are forgotten and the
    /// registration is `Unverified` again; the install keeps its DeviceID and push token.
    public func reset(_ request: Request) async -> Response {
        do throws(Refusal) {
            let caller = try await authenticate(request)
            let existing = try await device(request, caller: caller)
            let current = now()
            let updated = try await writing {
                try await registry.update(existing.deviceID) { registration in
                    registration.verification.reset()
                    registration.updatedAt = current
                    return registration
                }
            }
            guard let updated else { throw Refusal(.badRequest, "the DeviceID is not known for this app") }
            logger.info("device registration reset", ["deviceID": .string(updated.deviceID.text)])
            return Response.json(.ok, DeviceAPICodec.registration(updated, appName: caller.app.name))
        } catch {
            return error.response
        }
    }

    /// `POST /v1.0/deviceregistrations/voicecall`: the current PIN read out by phone. Only after a PIN was
    /// requested by SMS and while it is valid (the same PIN, never a new one). An optional `Msisdn` in
    /// the body must be the registration's number.
    public func voiceCall(_ request: Request) async -> Response {
        do throws(Refusal) {
            let caller = try await authenticate(request)
            var registration = try await device(request, caller: caller)
            let number = try decode { () throws(DeviceAPICodec.Problem) in try DeviceAPICodec.voiceCallNumber(request.body) }
            if let number, number != registration.msisdn {
                throw Refusal(.badRequest, "Msisdn is not the number of this registration")
            }
            let current = now()
            let effect: VerificationEffect
            do {
                effect = try registration.verification.requestVoiceCall(now: current, settings: configuration.verification.settings)
            } catch {
                throw Refusal(.badRequest, "request a PIN by SMS first (PUT Msisdn): a voice call reads out that PIN while it is valid")
            }
            try await charge(Step(effect: effect), caller: caller, now: current)
            try await perform(effect, caller: caller)
            return Response.json(.ok, DeviceAPICodec.registration(registration, appName: caller.app.name))
        } catch {
            return error.response
        }
    }

    // MARK: Steps

    /// Applies `changes` to `registration` (pure: `now` and the nonce for a new PIN come from the caller). A
    /// new PIN has `app`'s PIN length; a PIN is checked with the length it was issued with.
    func apply(_ changes: DeviceAPICodec.RegistrationChanges, to registration: inout DeviceRegistration, app: App, now: Timestamp,
               nonce: String) -> Step {
        var settings = configuration.verification.settings
        settings.pinLength = app.smsProtection.pinLength ?? settings.pinLength
        let configuredLength = configuration.verification.pinLength
        var step = Step()
        if let token = changes.pushToken, token != registration.pushToken {
            registration.pushToken = token
            if token != nil { registration.verification.pushTokenReplaced() }
        }
        if let enabled = changes.notificationsEnabled { registration.notificationsEnabled = enabled }
        // Development mode: the install's pushes go to APNs' sandbox; leaving it returns to the app's environment.
        if let development = changes.development { registration.apnsSandbox = development ? true : nil }
        if let number = changes.msisdn {
            step.effect = registration.verification.setMSISDN(number, now: now, nonce: nonce, settings: settings)
        }
        if let code = changes.verificationCode {
            let codec = pinCodec
            step.outcome = registration.verification.verify(now: now, settings: settings) { challenge in
                codec.matches(code, challenge: challenge, length: challenge.length(configured: configuredLength))
            }
        }
        registration.updatedAt = now
        return step
    }

    /// Charges a step that sends a PIN to the abuse limits and the SMS pumping defence; throws 429 when a
    /// budget is spent or the prefix is blocked, 403 when the app does not send PINs to the number's country.
    private func charge(_ step: Step, caller: Caller, now: Timestamp) async throws(Refusal) {
        switch step.effect {
        case .none: return
        case .sendSMS(let challenge), .call(let challenge): try await admitPIN(challenge, caller: caller, now: now)
        }
    }

    /// Sends the PIN a step asked for. The registration is already stored: a PIN that could not be sent
    /// is answered with 502, and asking again resends the same PIN. The client hears which provider failed,
    /// in its terms; the provider's own words (addresses, ports, libcurl's messages) go to the log only.
    private func perform(_ effect: VerificationEffect, caller: Caller) async throws(Refusal) {
        let configuredLength = configuration.verification.pinLength
        let language = UserAgent.language(caller.userAgent)
        switch effect {
        case .none:
            return
        case .sendSMS(let challenge):
            let message = pinMessage(challenge, appName: caller.app.name, language: language,
                                     length: challenge.length(configured: configuredLength))
            do {
                try await pinSender.sendPIN(message)
            } catch {
                logger.error("PIN SMS not sent", ["msisdn": .msisdn(challenge.msisdn), "error": .string(error.reason)])
                throw Refusal(.badGateway, "the PIN could not be sent: the SMS provider is unavailable; try again later")
            }
            deliveryMetrics.pinSMSSent()
            logger.info("PIN sent by SMS", ["msisdn": .msisdn(challenge.msisdn), "app": .string(caller.app.key.text)])
        case .call(let challenge):
            let message = pinMessage(challenge, appName: caller.app.name, language: language,
                                     length: challenge.length(configured: configuredLength))
            do {
                try await voiceCaller.callPIN(message)
            } catch {
                logger.error("PIN voice call not placed", ["msisdn": .msisdn(challenge.msisdn), "error": .string(error.reason)])
                throw Refusal(.badGateway, "the voice call could not be placed: the voice call provider is unavailable; "
                    + "try again later")
            }
            logger.info("PIN sent by voice call", ["msisdn": .msisdn(challenge.msisdn), "app": .string(caller.app.key.text)])
        }
    }

    private func pinMessage(_ challenge: PinChallenge, appName: String, language: String?, length: Int) -> PinMessage {
        let pin = pinCodec.pin(for: challenge.nonce, length: length)
        let text = configuration.verification.text.replacingOccurrences(of: "{app}", with: appName)
            .replacingOccurrences(of: "{pin}", with: pin)
        return PinMessage(msisdn: challenge.msisdn, pin: pin, sender: configuration.verification.sender, text: text,
                          language: language)
    }

    private static func describe(_ outcome: VerificationOutcome) -> String {
        switch outcome {
        case .verified: "verified"
        case .wrongPIN(let left): "wrong PIN (\(left) attempts left)"
        case .pinNoLongerValid: "PIN expired or attempts used up"
        case .noPINRequested: "no PIN requested"
        }
    }

    func decode<T>(_ body: () throws(DeviceAPICodec.Problem) -> T) throws(Refusal) -> T {
        do {
            return try body()
        } catch {
            throw Refusal(.badRequest, error.message)
        }
    }
}
