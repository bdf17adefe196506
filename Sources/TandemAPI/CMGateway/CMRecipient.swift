import TandemCore

/// One `to` value: what the sender wrote and, when it is a valid international number, the MSISDN.
///
/// A bad number refuses only this recipient (303); the message's other recipients go ahead.
/// Not done: de-duplication; a number named twice is two recipients, as at CM.
public struct CMRecipient: Sendable, Hashable {
    /// As sent, for the response line's `to`.
    public let raw: String
    public let result: Result<MSISDN, CMMessageError>

    public init(raw: String, result: Result<MSISDN, CMMessageError>) {
        self.raw = raw
        self.result = result
    }

    /// The normalised number, or nil when this recipient was refused.
    public var msisdn: MSISDN? {
        switch result {
        case .success(let msisdn): msisdn
        case .failure: nil
        }
    }
}
