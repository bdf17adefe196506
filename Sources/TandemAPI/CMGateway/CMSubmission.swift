/// A decoded MESSAGES request: the product token as sent and one entry per `msg`, each either a valid
/// `CMMessage` or the reason it was refused.
///
/// Not checked here: the product token (the handler authenticates, and may take it from the
/// `X-CM-PRODUCTTOKEN` header instead), the app key's ownership, and anything needing a clock or the store.
public struct CMSubmission: Sendable, Hashable {
    public let format: CMRequestFormat
    /// The token with surrounding spaces removed; nil when absent or empty.
    public let productToken: String?
    /// In request order; never empty (an empty `msg` array is a `CMRequestError` 203).
    public let messages: [CMMessageEntry]

    public init(format: CMRequestFormat, productToken: String?, messages: [CMMessageEntry]) {
        self.format = format
        self.productToken = productToken
        self.messages = messages
    }
}
