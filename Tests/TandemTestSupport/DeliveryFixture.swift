import Foundation
import TandemCore

/// Deliveries built by feeding real events to the core's state machine: what the store tests and the store
/// contract suite commit.
public enum Fixture {
    public static let t0 = Timestamp(milliseconds: 1_700_000_000_000)
    public static let critical = PolicySet.specDefaults.critical
    public static let otp = PolicySet.specDefaults.otp
    public static let webhookURL = "http://127.0.0.1:9/reports"
    /// The app the store tests register their devices with.
    public static let appKey = AppKey(GUID("aaaa0000-0000-4000-8000-0000000000a1")!)

    /// A deterministic GUID: `n` in the last group.
    public static func guid(_ n: Int) throws -> GUID {
        let hex = String(n, radix: 16)
        return try required(GUID("00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex))
    }

    public static func device(_ n: Int) throws -> DeviceID { DeviceID(try guid(0x0D00_0000 + n)) }

    public static func msisdn(_ n: Int) throws -> MSISDN {
        try required(MSISDN("+316" + String(format: "%08d", n)))
    }

    public static func content(_ n: Int, reference: String? = nil) throws -> MessageContent {
        MessageContent(messageID: try guid(n), sender: "Tandem", body: "message \(n) — ünïcode ✓", reference: reference)
    }

    /// A new delivery after its routing event.
    public static func routed(
        _ decision: RoutingDecision, msisdn: MSISDN, content: MessageContent, at: Timestamp = t0
    ) -> NewDeliveryRecord {
        var delivery = Delivery(smsValidity: .seconds(60))
        let event = DeliveryEvent.routed(decision)
        let actions = delivery.handle(event, now: at)
        return NewDeliveryRecord(recipient: .msisdn(msisdn), content: content, delivery: delivery, event: event, at: at,
                                 effects: PersistedEffects(actions: actions))
    }

    /// A new delivery pushed to `devices` (SMS fallback allowed) under `policy`.
    public static func pushed(
        to devices: [DeviceID], policy: Policy = critical, msisdn: MSISDN, content: MessageContent, at: Timestamp = t0
    ) throws -> NewDeliveryRecord {
        let targets = try devices.map { device in
            PushTarget(deviceID: device, platform: .iOS, token: try required(PushToken("token-\(device.text)")))
        }
        return routed(.push(PushPlan(targets: targets, policy: policy, smsAllowed: true)), msisdn: msisdn,
                      content: content, at: at)
    }

    /// Feeds `event` to `delivery` and returns the change to commit.
    public static func change(_ delivery: inout Delivery, key: DeliveryKey, _ event: DeliveryEvent, at: Timestamp) -> DeliveryChange {
        let actions = delivery.handle(event, now: at)
        return DeliveryChange(key: key, delivery: delivery, event: event, at: at, effects: PersistedEffects(actions: actions))
    }

    /// `value`, or a thrown error naming what was missing.
    private static func required<T>(_ value: T?, _ what: StaticString = #function) throws -> T {
        guard let value else { throw FixtureError(description: "\(what): a fixture value did not parse") }
        return value
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
}
