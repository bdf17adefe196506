import Foundation
import TandemCore

/// `outbox.payload` read back, by `outbox.kind`: a status report's JSON, or a myMSP event as the database's trigger
/// wrote it (package access: both backends store the same payloads).
package enum OutboxPayload {
    package static func content(kind: String, payload: String) throws(ColumnCodingError) -> OutboxItem.Content {
        do {
            if kind == "mymspEvent" {
                return .mymspEvent(try JSONDecoder().decode(StoredMyMSPEvent.self, from: Data(payload.utf8)).event)
            }
            return .statusReport(try JSONDecoder().decode(StatusReportPayload.self, from: Data(payload.utf8)))
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

