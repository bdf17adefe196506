import TandemCore
import TandemEngine
import TandemHTTP

/// `/v1.0/messages`: the install's inbox (with OData) and its delivery and read receipts.
extension DeviceAPIService {
    /// `GET /v1.0/messages`: the messages pushed through the caller's app to the number it verified,
    /// newest first unless `$orderby` says otherwise, at most `maxTop` per page. An install without a
    /// verified number has an empty inbox.
    public func inbox(_ request: Request) async -> Response {
        do throws(Refusal) {
            let caller = try await authenticate(request)
            let registration = try await device(request, caller: caller)
            let query: ODataQuery
            do {
                query = try ODataParser.parse(request.query.map { (name: $0.name, value: $0.value) }, maxTop: configuration.maxTop)
            } catch {
                throw Refusal(.badRequest, error.message)
            }
            guard let msisdn = registration.verifiedNumber else { return Response.json(.ok, query.renderJSON([])) }
            var page = query
            page.top = query.top ?? configuration.maxTop  // without $top, one page of maxTop
            let messages = try await reading { try await registry.inbox(app: caller.app.key, msisdn: msisdn, query: page) }
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
    ///
    /// Answered through `responder`: the checks run on the calling (HTTP worker) thread, then the scheduler
    /// answers from its pipeline once the receipt is committed — no task per receipt, as long as the app and the
    /// registration are answered without waiting (``SenderDirectory/cachedApp(key:)``,
    /// ``DeviceRegistry/cachedRegistration(_:)``: SQLite always answers). When one is not, the checks go on in a
    /// task, waiting for the asynchronous read.
    public func receipt(_ request: Request, responder: Responder) {
        do throws(Refusal) {
            guard let caller = try authenticateWithoutWaiting(request) else { return checkInTask(request, caller: nil, responder: responder) }
            let id = try deviceID(request)
            guard let cached = try reading({ try registry.cachedRegistration(id) }) else {
                return checkInTask(request, caller: caller, responder: responder)
            }
            submit(try checkReceipt(request, caller: caller, registration: try owned(cached, by: caller)), responder: responder)
        } catch {
            responder.respond(error.response)
        }
    }

    /// The receipt's checks from where the synchronous ones stopped (`caller` nil: before the signature), in a task
    /// that waits for the store's reads.
    private func checkInTask(_ request: Request, caller: Caller?, responder: Responder) {
        Task {
            do throws(Refusal) {
                let known: Caller
                if let caller { known = caller } else { known = try await self.authenticate(request) }
                self.submit(try self.checkReceipt(request, caller: known, registration: try await self.device(request, caller: known)),
                            responder: responder)
            } catch {
                responder.respond(error.response)
            }
        }
    }

    /// Hands a checked receipt to the scheduler, which answers `responder` once it is committed.
    private func submit(_ receipt: CheckedReceipt, responder: Responder) {
        scheduler.submitReceipt(receipt.events, for: receipt.key, from: receipt.sender) { [self] outcome in
            switch outcome {
            case .success(.recorded):
                responder.respond(Response.empty(.noContent))
            case .success(.notTheRecipient):
                responder.respond(Self.unknownUpdateID(receipt.key).response)
            case .success(.notInFlight):
                Task { responder.respond(await self.recordNotInFlight(receipt)) }
            case .failure(let error):
                responder.respond(storeFailure(error).response)
            }
        }
    }

    /// A receipt that passed every check needing no delivery: its events, as the install's, for the scheduler.
    struct CheckedReceipt: Sendable {
        let key: DeliveryKey
        let events: [DeliveryEvent]
        let sender: Scheduler.ReceiptSender
    }

    /// The checks after the signature's and the `DeviceID`'s (an unknown DeviceID is reported before a body that
    /// does not decode): the body, then the registration's verified number.
    private func checkReceipt(_ request: Request, caller: Caller, registration: DeviceRegistration) throws(Refusal) -> CheckedReceipt {
        let receipt: DeviceAPICodec.Receipt
        do {
            receipt = try DeviceAPICodec.receipt(request.body)
        } catch {
            throw Refusal(.badRequest, error.message)
        }
        guard let msisdn = registration.verifiedNumber else { throw Self.unknownUpdateID(receipt.updateID) }
        var events: [DeliveryEvent] = []
        events.reserveCapacity(2)
        if receipt.delivered { events.append(.deliveryAcknowledged(registration.deviceID)) }
        if receipt.readAt != nil { events.append(.readReported(registration.deviceID)) }
        return CheckedReceipt(key: receipt.updateID, events: events,
                              sender: Scheduler.ReceiptSender(app: caller.app.key, msisdn: msisdn))
    }

    /// A receipt for a delivery the scheduler does not hold: checked against the store, then recorded
    /// (logged only, when the delivery is final).
    private func recordNotInFlight(_ receipt: CheckedReceipt) async -> Response {
        do throws(Refusal) {
            try await checkStoredTarget(of: receipt)
            _ = try await writing { try await scheduler.record(receipt.events.map { (receipt.key, $0) }) }
            return Response.empty(.noContent)
        } catch {
            return error.response
        }
    }

    private func checkStoredTarget(of receipt: CheckedReceipt) async throws(Refusal) {
        guard let target = try await reading({ try await registry.receiptTarget(receipt.key) }), target.app == receipt.sender.app,
              target.recipient == receipt.sender.recipient else { throw Self.unknownUpdateID(receipt.key) }
        if target.isFinal && now() - target.createdAt > configuration.updateIDLifetime { throw Self.unknownUpdateID(receipt.key) }
    }

    private static func unknownUpdateID(_ key: DeliveryKey) -> Refusal {
        Refusal(.notFound, "no message with UpdateID \(key.rawValue) for this device")
    }
}
