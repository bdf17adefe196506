import TandemCrypto

/// Why a push provider could not load an app's signing key (the APNs `.p8`, the FCM service account).
/// The texts name files and variables, never key material.
public enum PushKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read (missing, unreadable, not UTF-8).
    case fileUnreadable(path: String)
    /// The environment variable holding the key is not set.
    case environmentVariableUnset(name: String)
    /// The service-account file is not the JSON Google issues (the text names the problem).
    case malformedServiceAccount(path: String, problem: String)
    /// The PEM text is not a usable key for the algorithm (P-256 for APNs, RSA for FCM).
    case invalidKey(CryptoError)
    /// libcrypto failed to sign.
    case signingFailed(CryptoError)

    public var description: String {
        switch self {
        case .fileUnreadable(let path): "cannot read \(path)"
        case .environmentVariableUnset(let name): "environment variable \(name) is not set"
        case .malformedServiceAccount(let path, let problem): "service account \(path): \(problem)"
        case .invalidKey(let error): "\(error)"
        case .signingFailed(let error): "signing failed: \(error)"
        }
    }
}
