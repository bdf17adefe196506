import TandemCore
import TandemEngine

extension SCGMessagingService {
    /// `GET /messaging/message_requests/{id}`.
    public func request(authorization: String?, id: String) async -> Reply {
        await withMessage(authorization, id) { message in
            Reply(status: 200, contentType: "application/json", body: SCGViewEncoder.request(message))
        }
    }

    /// `GET /messaging/message_requests?offset=&limit=`: newest first; `limit` 1–100 (default 100), `offset` ≥ 0.
    public func list(authorization: String?, offset offsetText: String?, limit limitText: String?) async -> Reply {
        let account: Account
        switch await authenticate(authorization) {
        case .success(let found): account = found
        case .failure(let error): return error.reply
        }
        guard let offset = Self.integer(offsetText, default: 0, in: 0...Int(Int32.max)) else {
            return SCGError.field("offset", "offset must be a whole number, 0 or more").reply
        }
        guard let limit = Self.integer(limitText, default: Self.maximumLimit, in: 1...Self.maximumLimit) else {
            return SCGError.field("limit", "limit must be a whole number from 1 to \(Self.maximumLimit)").reply
        }
        do {
            let page = try await messages.scgMessages(account: account.productToken, offset: offset, limit: limit)
            return Reply(status: 200, contentType: "application/json", body: SCGViewEncoder.list(page.messages, total: page.total))
        } catch {
            return storeFailure("list", error)
        }
    }

    /// `GET /messaging/message_requests/{id}/messages`: every recipient's message, in `to` order.
    public func recipientMessages(authorization: String?, id: String) async -> Reply {
        await withMessage(authorization, id) { message in
            Reply(status: 200, contentType: "application/json",
                  body: SCGViewEncoder.messages(SCGMessageEntry.entries(message), createdAt: message.createdAt))
        }
    }

    /// `GET /messaging/messages/{id}`: one recipient's message by its id `<request id>-<n>`.
    public func recipientMessage(authorization: String?, id: String) async -> Reply {
        guard let (requestID, position) = SCGMessageEntry.parseID(id) else {
            // Authenticate first: an unauthenticated caller learns nothing about ids.
            if case .failure(let error) = await authenticate(authorization) { return error.reply }
            return notFound("message", id)
        }
        return await withMessage(authorization, requestID.text) { message in
            let entries = SCGMessageEntry.entries(message)
            guard position <= entries.count else { return notFound("message", id) }
            return Reply(status: 200, contentType: "application/json",
                         body: SCGViewEncoder.message(entries[position - 1], createdAt: message.createdAt))
        }
    }

    /// `POST /messaging/message_requests/{id}` with `{"state":"CANCELED"}`: cancels what has not gone out;
    /// 204 once the cancels are committed.
    public func changeState(authorization: String?, id: String, body: [UInt8]) async -> Reply {
        let account: Account
        switch await authenticate(authorization) {
        case .success(let found): account = found
        case .failure(let error): return error.reply
        }
        var message: MessageView
        switch await find(account, id) {
        case .success(let found): message = found
        case .failure(let reply): return reply
        }
        do throws(SCGError) {
            _ = try SCGCodec.decodeStateChange(body)
        } catch {
            return error.reply
        }
        // Recipients still queued in the spool end cancelled first; then every recipient has a delivery to cancel.
        let queued: Int
        do {
            queued = try await intake.cancelQueued(message: message.id)
        } catch {
            return storeFailure("cancel", error)
        }
        if queued > 0 {
            switch await find(account, id) {
            case .success(let found): message = found
            case .failure(let reply): return reply
            }
        }
        let events = message.recipients.filter { !$0.delivery.isFinal }.map { ($0.key, DeliveryEvent.cancelledBySender) }
        do {
            _ = try await scheduler.record(events)
        } catch {
            return storeFailure("cancel", error)
        }
        logger.info("SCG message request cancelled", ["messageId": .string(message.id.text), "open": .int(Int64(events.count)),
                                                      "queued": .int(Int64(queued))])
        return Reply(status: 204, contentType: "application/json", body: [])
    }

    /// `DELETE /messaging/message_requests/{id}`: hidden from every SCG read (its deliveries carry on); 204.
    public func delete(authorization: String?, id: String) async -> Reply {
        let account: Account
        switch await authenticate(authorization) {
        case .success(let found): account = found
        case .failure(let error): return error.reply
        }
        guard let guid = GUID(id) else { return notFound("message request", id) }
        do {
            guard try await messages.hideSCGMessage(account: account.productToken, id: guid) else {
                return notFound("message request", id)
            }
        } catch {
            return storeFailure("delete", error)
        }
        return Reply(status: 204, contentType: "application/json", body: [])
    }

    // MARK: Shared

    private func withMessage(_ authorization: String?, _ id: String, _ body: (MessageView) async -> Reply) async -> Reply {
        let account: Account
        switch await authenticate(authorization) {
        case .success(let found): account = found
        case .failure(let error): return error.reply
        }
        switch await find(account, id) {
        case .success(let message): return await body(message)
        case .failure(let reply): return reply
        }
    }

    private func find(_ account: Account, _ id: String) async -> Result<MessageView, Reply> {
        guard let guid = GUID(id) else { return .failure(notFound("message request", id)) }
        do {
            guard let message = try await messages.scgMessage(account: account.productToken, id: guid) else {
                return .failure(notFound("message request", id))
            }
            return .success(message)
        } catch {
            return .failure(storeFailure("read", error))
        }
    }

    private func notFound(_ what: String, _ id: String) -> Reply {
        SCGError(.notFound, "no \(what) \(JSONText.quoted(id))").reply
    }

    private func storeFailure(_ action: String, _ error: any Error) -> Reply {
        logger.error("SCG store failure", ["action": .string(action), "error": .string("\(error)")])
        return SCGError(.internalError, "internal error").reply
    }

    /// A decimal whole number in `range`; `fallback` when absent; nil when malformed or out of range.
    static func integer(_ text: String?, default fallback: Int, in range: ClosedRange<Int>) -> Int? {
        guard let text else { return fallback }
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let value = Int(text), range.contains(value) else { return nil }
        return value
    }
}
