import Foundation
import TandemCore

/// `outbox.payload` read back, by `outbox.kind`: a status report's outcome with the values of its delivery read
/// with the row (``StatusReportPayload/init(payload:stored:)``), or a myMSP event as the database's trigger wrote
/// it (package access: both backends store the same payloads and read the same columns, ``selectColumns``).
package enum OutboxPayload {
    /// The columns a due-report query selects, in this order, from `outbox o` left-joined to its delivery `d` and
    /// that delivery's message `m`: the row's own, then what a status report takes from the stored delivery.
    package static let selectColumns = """
        o.id, o.url, o.format, o.kind, o.payload, o.attempts, o.created_at, d.id, d.created_at, m.message_id, d.msisdn,
        m.reference
        """
    /// The joins ``selectColumns`` reads through.
    package static let joins = "LEFT JOIN deliveries d ON d.id = o.delivery_id LEFT JOIN messages m ON m.id = d.message_id"

    /// Whether the row `o` may be posted now, its time come: a status report may; a myMSP event only when no earlier
    /// event to its URL is still queued (events to one URL go in order, one at a time, retries included). What comes
    /// due and when the relay next looks both obey it — the relay's wake-up once counted a held event, due already, and
    /// looked again at once, over and over, while the event before it waited for its retry.
    package static let mayGo = """
        (o.kind = 'statusReport' OR NOT EXISTS (
            SELECT 1 FROM outbox earlier WHERE earlier.kind = 'mymspEvent' AND earlier.url = o.url
              AND earlier.id < o.id AND earlier.delivered_at IS NULL AND earlier.abandoned_at IS NULL))
        """

    /// The values of columns 7–11 of ``selectColumns`` (nil when the row names no stored delivery).
    package static func stored(deliveryKey: Int64?, acceptedAt: Int64?, messageID: String?, msisdn: String?,
                               reference: String?) -> StoredReportValues? {
        guard let deliveryKey, let acceptedAt, let messageID = messageID.flatMap(GUID.init), let msisdn else { return nil }
        return StoredReportValues(deliveryKey: DeliveryKey(deliveryKey), acceptedAt: Timestamp(milliseconds: acceptedAt),
                                  messageID: messageID, msisdn: msisdn, reference: reference)
    }

    package static func content(kind: String, payload: String,
                                stored: StoredReportValues?) throws(ColumnCodingError) -> OutboxItem.Content {
        do {
            if kind == "mymspEvent" {
                return .mymspEvent(try JSONDecoder().decode(StoredMyMSPEvent.self, from: Data(payload.utf8)).event)
            }
            return .statusReport(try StatusReportPayload(payload: payload, stored: stored))
        } catch let error as ColumnCodingError {
            throw error
        } catch {
            throw ColumnCodingError(message: "\(error)")
        }
    }
}

/// A myMSP event as the `mymsp_event_push` trigger (SQLite migration 26, PostgreSQL's function of the same name)
/// writes it into `outbox.payload`.
private struct StoredMyMSPEvent: Decodable {
    let msgNo: Int64
    let createdAt: Int64
    let creatorName: String
    let initialId: String
    let originatorText: Int64
    let destination: String
    let subject: String

    var event: MyMSPEvent {
        get throws {
            guard let action = MyMSPAction(rawValue: initialId) else {
                throw ColumnCodingError(message: "unknown myMSP action \(initialId)")
            }
            return MyMSPEvent(msgno: msgNo, createdAt: Timestamp(milliseconds: createdAt), userName: creatorName, action: action,
                              recipient: originatorText, destination: destination, subject: subject)
        }
    }
}

