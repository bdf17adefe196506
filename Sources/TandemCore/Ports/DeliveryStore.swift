/// Where the scheduler persists deliveries. Every call is one durable transaction: when it returns, the
/// changes survive `kill -9`; when it throws, none of them happened.
public protocol DeliveryStore: Sendable {
    /// Stores `requests` (message records, idempotency keys), inserts `deliveries` (each with its first
    /// transition already applied) and applies `changes`, in one transaction; returns the new deliveries'
    /// keys, in order.
    func commit(requests: [AcceptedRequest], inserts: [NewDeliveryRecord], changes: [DeliveryChange]) async throws -> [DeliveryKey]

    /// Appends an event to a delivery that is already final (a late receipt): the event log only.
    func appendLateEvent(_ event: DeliveryEvent, to key: DeliveryKey, at: Timestamp) async throws

    /// The delivery an SMS part id (``SMSSubmission/references``) was recorded for, final or not; nil if none.
    func deliveryKey(smsProvider provider: String, reference: String) async throws -> DeliveryKey?

    /// Every delivery that is not final, with what the dispatcher needs to resume it.
    func loadInFlight() async throws -> [StoredDelivery]
}

extension DeliveryStore {
    /// Inserts and changes deliveries with no request records.
    public func commit(inserts: [NewDeliveryRecord], changes: [DeliveryChange]) async throws -> [DeliveryKey] {
        try await commit(requests: [], inserts: inserts, changes: changes)
    }
}

/// A new delivery and everything its first transition (routing) produced.
public struct NewDeliveryRecord: Sendable {
    public let msisdn: MSISDN
    public let content: MessageContent
    public let delivery: Delivery
    public let event: DeliveryEvent
    public let at: Timestamp
    public let effects: PersistedEffects

    public init(msisdn: MSISDN, content: MessageContent, delivery: Delivery, event: DeliveryEvent, at: Timestamp,
                effects: PersistedEffects) {
        self.msisdn = msisdn
        self.content = content
        self.delivery = delivery
        self.event = event
        self.at = at
        self.effects = effects
    }
}

/// One event applied to an existing delivery: its snapshot afterwards and the effects to persist with it.
public struct DeliveryChange: Sendable {
    public let key: DeliveryKey
    public let delivery: Delivery
    public let event: DeliveryEvent
    public let at: Timestamp
    public let effects: PersistedEffects

    public init(key: DeliveryKey, delivery: Delivery, event: DeliveryEvent, at: Timestamp, effects: PersistedEffects) {
        self.key = key
        self.delivery = delivery
        self.event = event
        self.at = at
        self.effects = effects
    }
}

/// The actions that are database writes, persisted in the same transaction as the snapshot.
public struct PersistedEffects: Sendable, Hashable {
    /// Final status reports for the sender's outbox.
    public var reports: [DeliveryStatus] = []
    /// Registrations whose push token the push service declared dead.
    public var invalidations: [DeviceID] = []

    public init(reports: [DeliveryStatus] = [], invalidations: [DeviceID] = []) {
        self.reports = reports
        self.invalidations = invalidations
    }

    /// The database writes among a transition's actions: final reports and registration invalidations.
    public init(actions: [DeliveryAction]) {
        for action in actions {
            switch action {
            case .report(let status): reports.append(status)
            case .invalidateRegistration(let device): invalidations.append(device)
            case .sendPush, .terminatePush, .sendSMS, .schedule, .cancel, .record: break
            }
        }
    }
}

/// An in-flight delivery with what acting on it needs: as loaded at start-up, as the scheduler holds it,
/// and as the dispatcher receives it.
public struct StoredDelivery: Sendable {
    public let key: DeliveryKey
    public let msisdn: MSISDN
    public let content: MessageContent
    public var delivery: Delivery

    public init(key: DeliveryKey, msisdn: MSISDN, content: MessageContent, delivery: Delivery) {
        self.key = key
        self.msisdn = msisdn
        self.content = content
        self.delivery = delivery
    }
}
