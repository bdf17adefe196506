import Synchronization
import TandemCore

/// Temporary, until the engine takes SMS reports by reference (`SMSReportHandler` → `provider_refs`):
/// wraps the SMS sender, remembers which delivery each submitted reference belongs to, and turns reports
/// back into `smsReportReceived` events for that delivery. The first report for a reference is used and
/// forgets it; references that are never reported stay in memory (the simulator's `none` outcome).
final class SMSReferenceBridge: SMSSender {
    private let sender: any SMSSender
    private let keys = Mutex<[String: DeliveryKey]>([:])

    init(_ sender: any SMSSender) {
        self.sender = sender
    }

    var providerName: String { sender.providerName }

    func submit(_ sms: SMSRequest) async -> SMSSubmitResult {
        let result = await sender.submit(sms)
        if case .submitted(let references) = result {
            keys.withLock { keys in for reference in references { keys[reference] = sms.key } }
        }
        return result
    }

    /// The events for `reports` whose reference this bridge issued; others are dropped.
    func events(for reports: [SMSDeliveryReport]) -> [(DeliveryKey, DeliveryEvent)] {
        keys.withLock { keys in
            reports.compactMap { report in
                keys.removeValue(forKey: report.reference).map { ($0, DeliveryEvent.smsReportReceived(report.outcome)) }
            }
        }
    }
}
