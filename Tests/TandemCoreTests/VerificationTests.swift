import Testing
@testable import TandemCore

@Suite("PIN verification")
struct VerificationTests {
    let t0 = Timestamp(milliseconds: 1_790_000_000_000)
    let settings = VerificationSettings()
    let number = MSISDN("+31612345678")!

    /// The PIN check the shell does: here the "PIN" is the nonce itself.
    func pin(_ code: String) -> (PinChallenge) -> Bool { { $0.nonce == code } }

    @Test("WaitingForPin → wrong PIN → LastPinVerificationFailed → right PIN → PinVerified")
    func happyPath() throws {
        var verification = Verification()
        guard case .sendSMS(let sent) = verification.setMSISDN(number, now: t0, nonce: "n1", settings: settings) else {
            Issue.record("no SMS")
            return
        }
        #expect(sent.msisdn == number && sent.expiresAt == t0 + .seconds(600))
        #expect(verification.status == .waitingForPin)
        #expect(verification.verify(now: t0 + .seconds(5), settings: settings, matches: pin("wrong")) == .wrongPIN(attemptsLeft: 4))
        #expect(verification.status == .lastPinVerificationFailed)
        #expect(verification.verify(now: t0 + .seconds(9), settings: settings, matches: pin("n1")) == .verified)
        #expect(verification.status == .pinVerified && verification.challenge == nil)
        // Setting the same verified number again sends nothing.
        #expect(verification.setMSISDN(number, now: t0 + .seconds(20), nonce: "n2", settings: settings) == .none)
    }

    @Test("a PIN expires; after expiry only a new PIN helps")
    func expiry() throws {
        var verification = Verification()
        _ = verification.setMSISDN(number, now: t0, nonce: "n1", settings: settings)
        #expect(verification.verify(now: t0 + .seconds(600), settings: settings, matches: pin("n1")) == .pinNoLongerValid)
        guard case .sendSMS(let fresh) = try verification.requestPIN(now: t0 + .seconds(601), nonce: "n2", settings: settings) else {
            Issue.record("no new PIN")
            return
        }
        #expect(fresh.nonce == "n2")
        #expect(verification.verify(now: t0 + .seconds(602), settings: settings, matches: pin("n2")) == .verified)
    }

    @Test("five wrong PINs use the PIN up; the right one is then refused until a new PIN")
    func attemptLimit() throws {
        var verification = Verification()
        _ = verification.setMSISDN(number, now: t0, nonce: "n1", settings: settings)
        for left in (0..<5).reversed() {
            #expect(verification.verify(now: t0, settings: settings, matches: pin("x")) == .wrongPIN(attemptsLeft: left))
        }
        #expect(verification.verify(now: t0, settings: settings, matches: pin("n1")) == .pinNoLongerValid)
        guard case .sendSMS(let fresh) = try verification.requestPIN(now: t0, nonce: "n2", settings: settings) else {
            Issue.record("no new PIN")
            return
        }
        #expect(fresh.nonce == "n2" && fresh.attempts == 0)
    }

    @Test("a new-PIN request and a voice call resend the same PIN while it is valid")
    func resendSamePIN() throws {
        var verification = Verification()
        _ = verification.setMSISDN(number, now: t0, nonce: "n1", settings: settings)
        _ = verification.verify(now: t0, settings: settings, matches: pin("x"))
        guard case .sendSMS(let again) = try verification.requestPIN(now: t0 + .seconds(60), nonce: "n2", settings: settings) else {
            Issue.record("no resend")
            return
        }
        #expect(again.nonce == "n1" && again.attempts == 1)
        #expect(try verification.requestVoiceCall(now: t0 + .seconds(61), settings: settings) == .call(again))
    }

    @Test("a voice call needs an SMS PIN requested first, still valid")
    func voiceCallOrdering() throws {
        var verification = Verification()
        #expect(throws: VerificationRefusal.noSMSPINRequested) { try verification.requestVoiceCall(now: t0, settings: settings) }
        #expect(throws: VerificationRefusal.noMSISDN) { try verification.requestPIN(now: t0, nonce: "n", settings: settings) }
        _ = verification.setMSISDN(number, now: t0, nonce: "n1", settings: settings)
        #expect(throws: VerificationRefusal.noSMSPINRequested) {
            try verification.requestVoiceCall(now: t0 + .seconds(600), settings: settings)
        }
    }

    @Test("a new number restarts verification; reset forgets everything")
    func newNumberAndReset() throws {
        var verification = Verification()
        _ = verification.setMSISDN(number, now: t0, nonce: "n1", settings: settings)
        _ = verification.verify(now: t0, settings: settings, matches: pin("n1"))
        let other = try #require(MSISDN("+31612345679"))
        guard case .sendSMS(let sent) = verification.setMSISDN(other, now: t0, nonce: "n2", settings: settings) else {
            Issue.record("no SMS to the new number")
            return
        }
        #expect(sent.msisdn == other && verification.status == .waitingForPin)
        verification.reset()
        #expect(verification == Verification())
        #expect(verification.verify(now: t0, settings: settings, matches: pin("n2")) == .noPINRequested)
    }
}
