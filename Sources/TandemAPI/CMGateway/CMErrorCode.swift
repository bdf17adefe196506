/// The error codes of CM's MESSAGES API, as `errorCode` (whole request) and `messageErrorCode` (one line).
///
/// 1xx are about the account, 2xx about the request as a whole, 3xx about one message's fields, 4xx about
/// what the platform refuses to deliver. Tandem reuses CM's numbers and, where CM's meaning does not apply,
/// gives them Tandem's meaning: 402 is "channel not supported" (CM: blacklisted) and 403 "app not allowed"
/// (CM: rejected).
public enum CMErrorCode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case ok = 0
    case authenticationFailed = 101
    case balanceInsufficient = 102
    case productTokenIncorrect = 103
    case notAllMessagesSent = 201
    case malformedRequest = 202
    case messageArrayIncorrect = 203
    case invalidFrom = 301
    case invalidTo = 302
    case invalidMSISDN = 303
    case invalidBody = 304
    case invalidField = 305
    case messageRejected = 401
    case channelNotSupported = 402
    case appNotAllowed = 403
    case internalError = 500
    case unknown = 999

    /// The default human-readable meaning, used when a more specific detail is not available.
    public var defaultDescription: String {
        switch self {
        case .ok: "OK"
        case .authenticationFailed: "Authentication of the request failed"
        case .balanceInsufficient: "The account has insufficient balance"
        case .productTokenIncorrect: "The product token is incorrect"
        case .notAllMessagesSent: "Not all messages were accepted"
        case .malformedRequest: "The request is malformed"
        case .messageArrayIncorrect: "The msg array is missing, empty or incorrect"
        case .invalidFrom: "The message has an invalid from field"
        case .invalidTo: "The message has an invalid to field"
        case .invalidMSISDN: "The message has an invalid MSISDN in the to field"
        case .invalidBody: "The message has an invalid body"
        case .invalidField: "The message has an invalid field"
        case .messageRejected: "The message was rejected"
        case .channelNotSupported: "None of the allowed channels is supported"
        case .appNotAllowed: "The app key is not allowed for this account"
        case .internalError: "Internal error"
        case .unknown: "Unknown error"
        }
    }

    public var description: String { "\(rawValue)" }
}
