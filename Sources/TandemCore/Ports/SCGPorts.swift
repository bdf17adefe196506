/// One bearer token of the SCG messaging API as operators see it: never the token itself (only its
/// SHA-256 digest is stored), but its number, label and lifetime.
public struct SCGTokenInfo: Sendable, Hashable {
    /// The token's number, unique across accounts: what `revoke` names.
    public let id: Int64
    public let account: ProductToken
    public let label: String
    public let createdAt: Timestamp
    /// Set once revoked; a revoked token no longer authenticates.
    public let revokedAt: Timestamp?

    public init(id: Int64, account: ProductToken, label: String, createdAt: Timestamp, revokedAt: Timestamp?) {
        self.id = id
        self.account = account
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// A live SCG token's digest and the account it authenticates.
public struct SCGTokenGrant: Sendable, Hashable {
    /// SHA-256 of the token's UTF-8 text.
    public let digest: [UInt8]
    public let account: Account

    public init(digest: [UInt8], account: Account) {
        self.digest = digest
        self.account = account
    }
}

/// Where SCG bearer tokens live: digests only. Writes return once durable.
public protocol SCGTokenStore: Sendable {
    /// Stores a new token (its SHA-256 digest) for the account; nil (nothing stored) when no account has
    /// the product token.
    func insertSCGToken(account: ProductToken, digest: [UInt8], label: String, createdAt: Timestamp) async throws -> SCGTokenInfo?
    /// The account's tokens, oldest first, revoked ones included; nil when no account has the product token.
    func scgTokens(account: ProductToken) async throws -> [SCGTokenInfo]?
    /// Revokes the account's token `id`; false when the account has no such live token.
    func revokeSCGToken(account: ProductToken, id: Int64, at: Timestamp) async throws -> Bool
    /// The token with this SHA-256 digest and its account, unless revoked (a disabled account's included:
    /// the caller refuses it). One indexed read.
    func scgTokenGrant(digest: [UInt8]) async throws -> SCGTokenGrant?
}

/// What the SCG messaging API reads and changes about its own messages (those sent with `api` `scg`).
/// Every call is scoped to one account; a message another account sent, or one sent through another API,
/// is never returned.
public protocol SCGMessageStore: Sendable {
    /// The account's SCG message, unless deleted (hidden).
    func scgMessage(account: ProductToken, id: GUID) async throws -> MessageView?
    /// The account's SCG messages that are not deleted, newest first, `offset` of them skipped and at most
    /// `limit` returned, with how many there are in all.
    func scgMessages(account: ProductToken, offset: Int, limit: Int) async throws -> (messages: [MessageView], total: Int)
    /// Hides the message from every SCG read (its deliveries carry on); false when the account has no such
    /// visible SCG message.
    func hideSCGMessage(account: ProductToken, id: GUID) async throws -> Bool
}

/// The outcome of setting an app's sender id.
public enum SenderIDChange: Sendable, Hashable {
    case set
    case unknownApp
    /// Another app of the same account already has this sender id (sender ids name one app per account).
    case takenBy(AppKey)
}

/// Sets the sender id an app is also known by (SCG's `psh:apn@<sender id>@<token>` and `from`).
public protocol AppSenderIDStore: Sendable {
    /// Sets (nil: removes) the app's sender id.
    func changeSenderID(app: AppKey, to senderID: String?) async throws -> SenderIDChange
}

/// What a sender id may be: 1–64 printable ASCII characters without `@`, `:` or spaces (it is written inside
/// `psh:apn@<sender id>@<token>` and after `sender_id:`).
public enum SenderIDRule {
    public static let maximumLength = 64

    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength
            && text.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "@") && $0 != UInt8(ascii: ":") }
    }
}
