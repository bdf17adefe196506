import TandemCore
import TandemEngine
import TandemHTTP

/// `/v1.0/messages`: the install's inbox (with OData) and its delivery and read receipts.
extension DeviceAPIService {
    /// `GET /v1.0/messages`: the messages pushed through the caller's app to the number it verified,
    /// newest first unless `$orderby` says otherwise, at most `maxTop` per page. An install without a
    /// verified number has an empty inbox.
    public func inbox(_ request: Request) -> Response {
        do throws(Refusal) {
            let caller = try authenticate(request)
            let registration = try device(request, caller: caller)
            let query: ODataQuery
            do {
                query = try ODataParser.parse(request.query.map { (name: $0.name, value: $0.value) }, maxTop: configuration.maxTop)
            } catch {
                throw Refusal(.badRequest, error.message)
            }
            guard let msisdn = registration.verifiedNumber else { return Response.json(.ok, query.renderJSON([])) }
            let messages = try reading {
                try registry.inbox(app: caller.app.key, msisdn: msisdn, query: Self.inboxQuery(query, maxTop: configuration.maxTop))
            }
            return Response.json(.ok, query.renderJSON(messages))
        } catch {
            return error.response
        }
    }

    /// `PUT /v1.0/messages`: `"Status": "Delivered"` acknowledges the push, `ReadByRecipient` reports it
    /// displayed; both go to the scheduler as this install's events and are answered 204 once committed.
    /// An `UpdateID` that is unknown, not the caller's (another app, another number), or of a final
    /// delivery older than `updateIDLifetime` is 404.
    ///
    /// The hot path reads nothing from the database: the registration comes from the store's cache and the
    /// scheduler checks a delivery in flight against the caller as it applies the events. Only a receipt for
    /// a delivery not in flight (final, or unknown) reads the delivery.
    public func receipt(_ request: Request) async -> Response {
        // The checks run in a synchronous function, so that this task's frame holds only what the scheduler
        // is asked (a large async frame costs a heap allocation per request).
        let checked: CheckedReceipt
        switch checkReceipt(request) {
        case .success(let receipt): checked = receipt
        case .failure(let refusal): return refusal.response
        }
        do throws(Refusal) {
            try await record(checked)
            return Response.empty(.noContent)
        } catch {
            return error.response
        }
    }

    /// A receipt that passed every check needing no delivery: its events, as the install's, for the scheduler.
    struct CheckedReceipt: Sendable {
        let key: DeliveryKey
        let events: [DeliveryEvent]
        let sender: Scheduler.ReceiptSender
    }

    private func checkReceipt(_ request: Request) -> Result<CheckedReceipt, Refusal> {
        do throws(Refusal) {
            let caller = try authenticate(request)
            let receipt: DeviceAPICodec.Receipt
            do {
                receipt = try DeviceAPICodec.receipt(request.body)
            } catch {
                _ = try device(request, caller: caller)  // an unknown DeviceID is the first thing to report
                throw Refusal(.badRequest, error.message)
            }
            let registration = try device(request, caller: caller)
            guard let msisdn = registration.verifiedNumber else { throw Self.unknownUpdateID(receipt.updateID) }
            var events: [DeliveryEvent] = []
            events.reserveCapacity(2)
            if receipt.delivered { events.append(.deliveryAcknowledged(registration.deviceID)) }
            if receipt.readAt != nil { events.append(.readReported(registration.deviceID)) }
            return .success(CheckedReceipt(key: receipt.updateID, events: events,
                                           sender: Scheduler.ReceiptSender(app: caller.app.key, msisdn: msisdn)))
        } catch {
            return .failure(error)
        }
    }

    /// Hands the receipt to the scheduler; one for a delivery not in flight is checked against the store
    /// first, and then recorded (logged only, when the delivery is final).
    private func record(_ receipt: CheckedReceipt) async throws(Refusal) {
        switch try await writing({ try await scheduler.recordReceipt(receipt.events, for: receipt.key, from: receipt.sender) }) {
        case .recorded:
            return
        case .notTheRecipient:
            throw Self.unknownUpdateID(receipt.key)
        case .notInFlight:
            try checkStoredTarget(of: receipt)
            _ = try await writing { try await scheduler.record(receipt.events.map { (receipt.key, $0) }) }
        }
    }

    private func checkStoredTarget(of receipt: CheckedReceipt) throws(Refusal) {
        guard let target = try reading({ try registry.receiptTarget(receipt.key) }), target.app == receipt.sender.app,
              target.msisdn == receipt.sender.msisdn else { throw Self.unknownUpdateID(receipt.key) }
        if target.isFinal && now() - target.createdAt > configuration.updateIDLifetime { throw Self.unknownUpdateID(receipt.key) }
    }

    private static func unknownUpdateID(_ key: DeliveryKey) -> Refusal {
        Refusal(.notFound, "no message with UpdateID \(key.rawValue) for this device")
    }

    /// The OData query as the store's ``InboxQuery``; without `$top`, one page of `maxTop`.
    static func inboxQuery(_ query: ODataQuery, maxTop: Int) -> InboxQuery {
        let columns = InboxQuery.columns
        let fragment = ODataSQL.translate(query, columns: ODataSQLColumns(
            id: columns.id, updateID: columns.updateID, sender: columns.sender, dateTime: columns.dateTime, status: columns.status))
        return InboxQuery(condition: fragment.whereClause, orderBy: fragment.orderBy, limit: fragment.limit ?? maxTop,
                          offset: fragment.offset, bindings: fragment.bindings.map { value in
                              switch value {
                              case .integer(let number): .integer(number)
                              case .text(let text): .text(text)
                              }
                          })
    }
}
