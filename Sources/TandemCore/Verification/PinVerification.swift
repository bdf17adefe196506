/// How MSISDN verification by PIN behaves (config `verification`).
public struct VerificationSettings: Sendable, Hashable {
    /// Digits in a new PIN (the SDK documentation shows four, `'0785'`; Tandem's default is six, and an app
    /// whose entry screen takes exactly four may set four).
    public var pinLength = 6
    public var pinLifetime: Duration = .seconds(600)
    /// Wrong PINs allowed before a new PIN must be requested.
    public var maxAttempts = 5

    public init(pinLength: Int = 6, pinLifetime: Duration = .seconds(600), maxAttempts: Int = 5) {
        self.pinLength = pinLength
        self.pinLifetime = pinLifetime
        self.maxAttempts = maxAttempts
    }
}

/// One PIN sent to one number. The PIN itself is never stored: it is derived from `nonce` with a server
/// key the database does not hold (the shell's job), so a stolen database reveals no PIN and the same
/// PIN can be sent again (new-PIN request, voice call) while it is valid.
public struct PinChallenge: Sendable, Hashable {
    public let nonce: String
    public let msisdn: MSISDN
    public let issuedAt: Timestamp
    public let expiresAt: Timestamp
    public internal(set) var attempts: Int
    /// Digits in this PIN, fixed when it was issued (an app's length may change while a PIN is out); nil
    /// for a challenge stored before lengths were recorded: it has the configured length.
    public let pinLength: Int?

    public init(nonce: String, msisdn: MSISDN, issuedAt: Timestamp, expiresAt: Timestamp, attempts: Int, pinLength: Int? = nil) {
        self.nonce = nonce
        self.msisdn = msisdn
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.pinLength = pinLength
    }

    /// The PIN's length: its own, else `configured`.
    public func length(configured: Int) -> Int { pinLength ?? configured }

    public func isUsable(now: Timestamp, settings: VerificationSettings) -> Bool {
        now < expiresAt && attempts < settings.maxAttempts
    }
}

/// What a verification step asks the shell to do.
public enum VerificationEffect: Sendable, Hashable {
    case none
    /// Send the challenge's PIN by SMS.
    case sendSMS(PinChallenge)
    /// Read the challenge's PIN out in a voice call.
    case call(PinChallenge)
}

public enum VerificationOutcome: Sendable, Hashable {
    case verified
    /// Wrong PIN; this many attempts are left on the current PIN (0: a new PIN is needed).
    case wrongPIN(attemptsLeft: Int)
    /// The PIN expired or its attempts are used up: a new PIN must be requested.
    case pinNoLongerValid
    /// No PIN was requested for this registration.
    case noPINRequested
}

public enum VerificationRefusal: Error, Sendable, Hashable {
    /// The registration has no MSISDN to send a PIN to.
    case noMSISDN
    /// A voice call is only possible after an SMS PIN was requested and while it is valid.
    case noSMSPINRequested
}

/// A registration's verification as a value-type state machine: the status the SDKs show, the number,
/// and the outstanding PIN. Pure: `now` and fresh nonces come from the caller.
///
/// - Setting a new (or unverified) MSISDN issues a PIN by SMS: `WaitingForPin`.
/// - A new-PIN request resends the same PIN while it is valid, else issues a new one.
/// - A voice call reads out the current PIN, only after an SMS PIN was requested and while it is valid.
/// - A right PIN: `PinVerified`. A wrong one: `LastPinVerificationFailed`; after `maxAttempts` wrong PINs,
///   or once the PIN expired, only a new PIN helps.
/// - `reset()` (SIM change, `DELETE`): `Unverified`, no number, no PIN.
public struct Verification: Sendable, Hashable {
    public private(set) var status: RegistrationStatus
    public private(set) var msisdn: MSISDN?
    public private(set) var challenge: PinChallenge?

    public init(status: RegistrationStatus = .unverified, msisdn: MSISDN? = nil, challenge: PinChallenge? = nil) {
        self.status = status
        self.msisdn = msisdn
        self.challenge = challenge
    }

    /// The app set `Msisdn`. A number already verified is left as it is; setting the same unverified
    /// number again is a new-PIN request (the SDKs' `requestNewVerificationPin`); a new number starts over
    /// with a new PIN.
    public mutating func setMSISDN(_ number: MSISDN, now: Timestamp, nonce: String,
                                   settings: VerificationSettings) -> VerificationEffect {
        if number == msisdn {
            if status == .pinVerified { return .none }
            return resendOrIssue(nonce: nonce, now: now, settings: settings)
        }
        msisdn = number
        return issue(nonce: nonce, now: now, settings: settings)
    }

    /// The app asked for a (new) PIN by SMS.
    public mutating func requestPIN(now: Timestamp, nonce: String,
                                    settings: VerificationSettings) throws(VerificationRefusal) -> VerificationEffect {
        guard msisdn != nil else { throw .noMSISDN }
        if status == .pinVerified { return .none }
        return resendOrIssue(nonce: nonce, now: now, settings: settings)
    }

    /// The push service declared the token dead (`Invalid`) and the app sent a new one: a verified number
    /// is verified again, since verification is about the number, not the token.
    public mutating func pushTokenReplaced() {
        guard status == .invalid else { return }
        status = msisdn == nil ? .unverified : .pinVerified
    }

    /// The app asked for the PIN by voice call.
    public mutating func requestVoiceCall(now: Timestamp, settings: VerificationSettings) throws(VerificationRefusal) -> VerificationEffect {
        guard let challenge, challenge.msisdn == msisdn, challenge.isUsable(now: now, settings: settings) else {
            throw .noSMSPINRequested
        }
        return .call(challenge)
    }

    /// The app sent a PIN; `matches` says whether it is the challenge's PIN (derived by the caller).
    public mutating func verify(now: Timestamp, settings: VerificationSettings,
                                matches: (PinChallenge) -> Bool) -> VerificationOutcome {
        guard var current = challenge, current.msisdn == msisdn else { return .noPINRequested }
        guard current.isUsable(now: now, settings: settings) else {
            status = .lastPinVerificationFailed
            return .pinNoLongerValid
        }
        if matches(current) {
            status = .pinVerified
            challenge = nil
            return .verified
        }
        current.attempts += 1
        challenge = current
        status = .lastPinVerificationFailed
        return .wrongPIN(attemptsLeft: max(0, settings.maxAttempts - current.attempts))
    }

    /// SIM change or `DELETE`: back to an unverified registration with no number.
    public mutating func reset() {
        status = .unverified
        msisdn = nil
        challenge = nil
    }

    /// The current PIN again while it is valid, else a new one.
    private mutating func resendOrIssue(nonce: String, now: Timestamp, settings: VerificationSettings) -> VerificationEffect {
        if let challenge, challenge.msisdn == msisdn, challenge.isUsable(now: now, settings: settings) {
            status = .waitingForPin
            return .sendSMS(challenge)
        }
        return issue(nonce: nonce, now: now, settings: settings)
    }

    private mutating func issue(nonce: String, now: Timestamp, settings: VerificationSettings) -> VerificationEffect {
        guard let msisdn else { return .none }
        let fresh = PinChallenge(nonce: nonce, msisdn: msisdn, issuedAt: now, expiresAt: now + settings.pinLifetime, attempts: 0,
                                 pinLength: settings.pinLength)
        challenge = fresh
        status = .waitingForPin
        return .sendSMS(fresh)
    }
}
