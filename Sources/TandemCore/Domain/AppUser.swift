/// The opaque id of an app's user (cospace's "current user", the `owner` of its push events): a UUID,
/// unique within its app.
public struct AppUserID: GUIDIdentifier, CustomStringConvertible {
    public let guid: GUID

    public init(_ guid: GUID) { self.guid = guid }

    public var description: String { guid.text }
}

/// A user of an app who keeps push tokens through cospace's `/api/push`, authenticated by a bearer token
/// that only its SHA-256 is kept of.
public struct AppUser: Sendable, Hashable {
    public let id: AppUserID
    public let app: AppKey
    public let createdAt: Timestamp
    /// Set once the user is revoked: its token no longer works and its push tokens are gone.
    public let revokedAt: Timestamp?

    public init(id: AppUserID, app: AppKey, createdAt: Timestamp, revokedAt: Timestamp? = nil) {
        self.id = id
        self.app = app
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    public var isActive: Bool { revokedAt == nil }
}

/// One push token a cospace user keeps, as `/api/push` adds and lists it: an FCM registration id, or an
/// APNs device token with the application id it belongs to and its own environment and topic.
public enum CospaceToken: Sendable, Hashable {
    case gcm(registrationID: PushToken)
    /// `sandbox` nil: the app's APNs environment; `topic` nil: the bundle-id part of `applicationID`
    /// (the app's topic when it is the same).
    case apns(deviceToken: PushToken, applicationID: String, sandbox: Bool?, topic: String?)

    public var platform: Platform {
        switch self {
        case .gcm: .android
        case .apns: .iOS
        }
    }

    public var token: PushToken {
        switch self {
        case .gcm(let token), .apns(let token, _, _, _): token
        }
    }
}

/// A user's live push tokens (not declared dead by a provider), oldest first, with the device ids their
/// registrations have.
public struct CospaceTokens: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let device: DeviceID
        public let token: CospaceToken

        public init(device: DeviceID, token: CospaceToken) {
            self.device = device
            self.token = token
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }
}
