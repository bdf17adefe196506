/// Where a device registration stands in MSISDN verification (spec: "Verification process"), plus
/// `Invalid` for a registration whose push token the push service declared dead.
public enum RegistrationStatus: String, Sendable, Hashable, WireNamed, Codable {
    case unverified = "Unverified"
    case waitingForPin = "WaitingForPin"
    case lastPinVerificationFailed = "LastPinVerificationFailed"
    case pinVerified = "PinVerified"
    case invalid = "Invalid"
}
