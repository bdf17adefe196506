/// The notification service a myMSP recipient's key belongs to (`spid`). `gcm` and `fcm` both go through
/// FCM HTTP v1 (Google shut legacy GCM down; a GCM registration id is an FCM token).
public enum MyMSPServiceProvider: String, Sendable, Hashable, CaseIterable {
    case apns
    case gcm
    case fcm

    /// The platform whose provider delivers it: APNs for `apns`, FCM for the others.
    public var platform: Platform {
        switch self {
        case .apns: .iOS
        case .gcm, .fcm: .android
        }
    }
}

/// A myMSP account (`user`): one name bound to one Tandem app, whose installs are its recipients.
public struct MyMSPUser: Sendable, Hashable {
    public let id: Int64
    public let name: String
    public let app: AppKey
    /// Salted SHA-256 of the password (see `MyMSPPassword` in TandemAPI): salt and hash, hex.
    public let passwordSalt: String
    public let passwordHash: String
    /// Where each event is POSTed as a form; nil: events are only polled.
    public let eventURL: String?

    public init(id: Int64, name: String, app: AppKey, passwordSalt: String, passwordHash: String, eventURL: String?) {
        self.id = id
        self.name = name
        self.app = app
        self.passwordSalt = passwordSalt
        self.passwordHash = passwordHash
        self.eventURL = eventURL
    }
}

/// A myMSP recipient: a registration of the user's app (origin `mymsp`) with a numeric id.
public struct MyMSPRecipient: Sendable, Hashable {
    public let id: Int64
    public let device: DeviceID
    public let provider: MyMSPServiceProvider
    public let active: Bool

    public init(id: Int64, device: DeviceID, provider: MyMSPServiceProvider, active: Bool) {
        self.id = id
        self.device = device
        self.provider = provider
        self.active = active
    }
}

/// What an event says happened (`initialId`).
public enum MyMSPAction: String, Sendable, Hashable, CaseIterable {
    case subscribe = "ACTION_SUB"
    case unsubscribe = "ACTION_UNSUB"
    case unsubscribeAll = "ACTION_UNSUB_ALL"
}

/// One notification event, numbered in the shared msgno space.
public struct MyMSPEvent: Sendable, Hashable {
    public let msgno: Int64
    public let createdAt: Timestamp
    public let userName: String
    public let action: MyMSPAction
    public let recipient: Int64
    /// The path the request went to; empty for an event myMSP made itself (a dead key).
    public let destination: String
    public let subject: String

    public init(msgno: Int64, createdAt: Timestamp, userName: String, action: MyMSPAction, recipient: Int64,
                destination: String, subject: String) {
        self.msgno = msgno
        self.createdAt = createdAt
        self.userName = userName
        self.action = action
        self.recipient = recipient
        self.destination = destination
        self.subject = subject
    }
}

/// One notification as `get` lists it, with the delivery it made for the asking recipient.
public struct MyMSPNotification: Sendable, Hashable {
    public let msgno: Int64
    public let sentAt: Timestamp
    public let text: String
    public let delivery: DeliveryKey
    public let final: Bool

    public init(msgno: Int64, sentAt: Timestamp, text: String, delivery: DeliveryKey, final: Bool) {
        self.msgno = msgno
        self.sentAt = sentAt
        self.text = text
        self.delivery = delivery
        self.final = final
    }
}

/// A named set of recipients of one user.
public struct MyMSPGroup: Sendable, Hashable {
    public let name: String
    public let shortName: String?
    public let recipients: [Int64]

    public init(name: String, shortName: String?, recipients: [Int64]) {
        self.name = name
        self.shortName = shortName
        self.recipients = recipients
    }
}

/// What a subscribe or an update did.
public enum MyMSPRecipientChange: Sendable, Hashable {
    /// Done: the recipient's id and whether the change reactivated it.
    case done(recipient: Int64, reactivated: Bool)
    /// No recipient with that id for this user.
    case unknownRecipient
    /// The key belongs to another registration of the app that is not this user's recipient.
    case keyTaken
}

/// The store behind the myMSP adapter. Every write call is one durable transaction; an event it creates
/// takes the next msgno and is queued for the user's event URL in the same transaction.
public protocol MyMSPDirectory: Sendable {
    func mymspUser(name: String) async throws -> MyMSPUser?
    func mymspUser(app: AppKey) async throws -> MyMSPUser?
    /// Creates or updates the user bound to `app` (one user per app).
    func setMyMSPUser(app: AppKey, name: String, passwordSalt: String, passwordHash: String, eventURL: String?,
                      at: Timestamp) async throws -> Bool
    func mymspRecipient(user: Int64, id: Int64) async throws -> MyMSPRecipient?
    /// `subscribe`: without `recipient`, a new recipient holding `key` (or the user's recipient that already
    /// holds it, reactivated); with it, that recipient. Creates one `ACTION_SUB` event.
    func mymspSubscribe(user: MyMSPUser, recipient: Int64?, provider: MyMSPServiceProvider, key: PushToken,
                        subject: String, destination: String, at: Timestamp) async throws -> MyMSPRecipientChange
    /// `updatekey`: replaces provider and key, reactivates; no event.
    func mymspUpdateKey(user: MyMSPUser, recipient: Int64, provider: MyMSPServiceProvider, key: PushToken,
                        at: Timestamp) async throws -> MyMSPRecipientChange
    /// `unsubscribe` / `unsubscribeall`: an event for an active recipient (`deactivate`: and it becomes
    /// inactive). Nil: no such recipient; false: it was inactive (no event).
    func mymspUnsubscribe(user: MyMSPUser, recipient: Int64, deactivate: Bool, subject: String, destination: String,
                          at: Timestamp) async throws -> Bool?
    /// Reserves the next `count` msgnos of the shared space (for notifications, before they are sent).
    func mymspReserveNumbers(_ count: Int) async throws -> ClosedRange<Int64>
    /// The user's active recipients among `ids` and the members of the groups named (by name or short
    /// name) in `groups`, in first-named order, without duplicates.
    func mymspActiveRecipients(user: Int64, ids: [Int64], groups: [String]) async throws -> [MyMSPRecipient]
    /// Notifications sent to `device` with msgno above `after`, sent at or after `sentAfter`, oldest first.
    func mymspNotifications(device: DeviceID, after: Int64, sentAfter: Timestamp?, limit: Int) async throws -> [MyMSPNotification]
    /// The user's events with msgno above `after`, oldest first.
    func mymspEvents(user: Int64, after: Int64, limit: Int) async throws -> [MyMSPEvent]
    func setMyMSPGroup(user: Int64, name: String, shortName: String?, recipients: [Int64], at: Timestamp) async throws
    func deleteMyMSPGroup(user: Int64, name: String) async throws -> Bool
    func mymspGroups(user: Int64) async throws -> [MyMSPGroup]
    /// Deletes events created before `before`; returns how many.
    func purgeMyMSPEvents(before: Timestamp) async throws -> Int
}
