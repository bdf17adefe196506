/// App users and the push tokens they keep through cospace's `/api/push` (implemented by the store).
///
/// A user's tokens are registrations of the user's app (origin `cospace`, owned by the user): counted with
/// the app's registrations, pushed through the one intake, and invalid for every API once a provider
/// declares one dead. Users are named by a UUID within their app and authenticated by the SHA-256 of
/// their bearer token (the token itself is never stored).
///
/// Guaranteed: every token call is scoped to one (app, user): a user never reads, changes or deletes
/// another user's tokens. A token added by a second user of the same app moves to that user (a push token
/// addresses one device, and the device now belongs to whoever registered it last).
/// Not guaranteed: that a revoked user's deliveries already in flight stop.
public protocol CospaceRegistry: Sendable {
    /// Adds `user` to `app` with the hash of a new token. A revoked user with this id becomes active again
    /// with the new token.
    func addUser(app: AppKey, user: AppUserID, tokenHash: String, at: Timestamp) async throws -> AppUserAddition
    /// The app's users, active and revoked, oldest first; nil when no app has the key.
    func users(app: AppKey) async throws -> [AppUser]?
    /// Whether `user` is an active (not revoked) user of `app`.
    func isActiveUser(app: AppKey, user: AppUserID) async throws -> Bool
    /// Revokes `user`: its token stops working and its push tokens are deleted.
    func revokeUser(app: AppKey, user: AppUserID, at: Timestamp) async throws -> AppUserRevocation
    /// The user whose token has this SHA-256 (lower-case hex), active or revoked, and the stored hash.
    func user(tokenHash: String) async throws -> (user: AppUser, storedHash: String)?
    /// The user's live tokens (not Invalid), oldest first.
    func tokens(app: AppKey, user: AppUserID) async throws -> CospaceTokens
    /// Adds `token` for the user, or updates it when the user has it already (a token declared dead lives
    /// again). A token another registration of the app holds moves to this user.
    func addToken(_ token: CospaceToken, app: AppKey, user: AppUserID, at: Timestamp) async throws
    /// Deletes the user's `token` of `platform`; false when the user had none (nothing changes).
    @discardableResult
    func deleteToken(_ token: PushToken, platform: Platform, app: AppKey, user: AppUserID) async throws -> Bool
    /// How many active users and cospace tokens (live or not) the app has.
    func cospaceCounts(app: AppKey) async throws -> (users: Int, tokens: Int)
}

public enum AppUserAddition: Sendable, Hashable {
    case added
    /// An active user with this id exists (its token is unchanged).
    case exists
    case unknownApp
}

public enum AppUserRevocation: Sendable, Hashable {
    case revoked
    /// No active user with this id.
    case unknownUser
    case unknownApp
}
