/// The access-handler state machine. libmicrohttpd calls `handle` (on the
/// connection's worker thread) once when headers are complete, once per body
/// chunk, once more when the body is complete, and once after every resume.
/// Normal responses are queued only on the final call, which keeps HTTP/1.1
/// keep-alive working; early rejections (413 by Content-Length, 414, 431) are
/// queued on the first call and close the connection. A body without a
/// usable Content-Length (chunked) that outgrows the limit gets its 413 only
/// once the body ends, or the connection is dropped without an answer once
/// more than `discardAllowance` further bytes arrive. The same holds for the
/// server-wide bound on buffered body bytes (`BodyBudget`), answered 503.
extension ServerCore {
    /// Returns false to make libmicrohttpd drop the connection.
    func handle(_ context: RequestContext, connection: MHDConnection, method: () -> String, upload: UnsafeRawBufferPointer) -> Bool {
        switch context.phase {
        case .new:
            return begin(context, connection: connection, methodText: method())
        case .receiving:
            if upload.isEmpty { return dispatch(context, connection: connection) }
            return receive(context, connection: connection, chunk: upload)
        case .discarding(let answer):
            if !upload.isEmpty {
                context.bodyBytesReceived += upload.count
                // Do not drain an endless body forever: past the allowance, drop the connection unanswered.
                return context.bodyBytesReceived - maxBodyBytes <= discardAllowance
            }
            return respond(context, connection: connection, answer, close: true)
        case .awaitingAsync:
            return deliverAsyncResult(context, connection: connection)
        case .responded:
            return true
        }
    }

    /// First call: headers are complete, no body read yet.
    private func begin(_ context: RequestContext, connection: MHDConnection, methodText: String) -> Bool {
        context.methodText = methodText
        context.method = HTTPMethod(rawValue: methodText)
        let (headers, headerBytes, namesAreTokens) = connection.requestHeaders()
        context.headers = headers
        context.remoteAddress = connection.clientAddress()
        if connection.isOverAddressLimit {
            var tooMany = Response.serverError(.tooManyRequests, "too many connections from this address")
            tooMany.headers.add(name: "Retry-After", value: "1")
            return respond(context, connection: connection, tooMany, close: true)
        }
        // A field name must be a token (RFC 9110 §5.1): libmicrohttpd 0.9.75 keeps `Content-Length : 34` as a
        // field named "Content-Length " and would then run the body as the next request (RFC 9112 §5.1: 400).
        if !namesAreTokens {
            return respond(context, connection: connection, .serverError(.badRequest, "malformed header field name"), close: true)
        }
        if context.target.utf8.count > maxURLBytes {
            return respond(context, connection: connection, .serverError(.uriTooLong, "uri too long"), close: true)
        }
        if headerBytes > maxHeaderBytes {
            return respond(context, connection: connection,
                           .serverError(.requestHeaderFieldsTooLarge, "request header fields too large"), close: true)
        }
        // libmicrohttpd 0.9.75 rejects a malformed Content-Length (400) but silently uses the first of
        // several, and lets chunked coding override one: refuse both shapes (request smuggling, RFC 9112 §6.3).
        let lengths = headers.count(of: "Content-Length")
        if lengths > 1 || (lengths == 1 && headers.contains("Transfer-Encoding")) {
            return respond(context, connection: connection, .serverError(.badRequest, "ambiguous message length"), close: true)
        }
        if lengths == 1, let declared = headers["Content-Length"], let length = Int(declared) {
            if length > maxBodyBytes {
                return respond(context, connection: connection, .payloadTooLarge(limit: maxBodyBytes), close: true)
            }
            guard bodyBudget.reserve(length) else {
                return respond(context, connection: connection, Self.bodyBudgetExhausted, close: true)
            }
            context.reservedBodyBytes = length
            context.declaredLength = true
            context.body.reserveCapacity(length)
        }
        context.phase = .receiving
        return true
    }

    private func receive(_ context: RequestContext, connection: MHDConnection, chunk: UnsafeRawBufferPointer) -> Bool {
        context.bodyBytesReceived += chunk.count
        guard context.body.count + chunk.count <= maxBodyBytes else {
            return discard(context, answering: .payloadTooLarge(limit: maxBodyBytes))
        }
        if !context.declaredLength {
            guard bodyBudget.reserve(chunk.count) else { return discard(context, answering: Self.bodyBudgetExhausted) }
            context.reservedBodyBytes += chunk.count
        }
        context.body.append(contentsOf: chunk)
        return true
    }

    /// libmicrohttpd 0.9.75 refuses a response while a body is still arriving, so read and drop the rest (up to
    /// `discardAllowance` bytes past the limit) and answer at the end of the body.
    private func discard(_ context: RequestContext, answering answer: Response) -> Bool {
        context.body = []
        bodyBudget.release(context.reservedBodyBytes)
        context.reservedBodyBytes = 0
        context.phase = .discarding(answer)
        return context.bodyBytesReceived - maxBodyBytes <= discardAllowance
    }

    /// The answer when the server already holds `maxBufferedBodyBytes` of request bodies.
    static var bodyBudgetExhausted: Response {
        var busy = Response.serverError(.serviceUnavailable, "server busy: too many request bodies in memory, retry later")
        busy.headers.add(name: "Retry-After", value: "1")
        return busy
    }

    /// Final call: the body is complete; route and run the handler.
    private func dispatch(_ context: RequestContext, connection: MHDConnection) -> Bool {
        guard let method = context.method else {
            return respond(context, connection: connection, .serverError(.notImplemented, "method not implemented"), close: false)
        }
        let target = RequestTarget(context.target)
        switch router.match(method, segments: target.segments) {
        case .notFound:
            return respond(context, connection: connection, .serverError(.notFound, "not found"), close: false)
        case .methodNotAllowed(let allowed):
            return respond(context, connection: connection, .methodNotAllowed(allowed), close: false)
        case .matched(let route, let handler, let parameters):
            context.route = route
            let body = context.body
            context.body = []
            let request = Request(method: method, target: context.target, parsed: target, headers: context.headers,
                                  body: body, pathParameters: parameters, remoteAddress: context.remoteAddress, route: route)
            switch handler {
            case .sync(let run):
                return respond(context, connection: connection, run(request), close: false)
            case .async(let run):
                guard let slot = suspend(context, connection: connection) else { return true }
                Task {
                    slot.complete(await run(request))
                }
                return true
            case .deferred(let run):
                guard let slot = suspend(context, connection: connection) else { return true }
                run(request, Responder(slot: slot))
                return true
            }
        }
    }

    /// Suspends the connection for an answer from elsewhere; nil when shutting down (then it is resumed at
    /// once and the re-entry answers 503). The slot may be completed, and the connection resumed, from any
    /// thread as soon as this returns — even before the access handler returns.
    private func suspend(_ context: RequestContext, connection: MHDConnection) -> AsyncResponseSlot? {
        let slot = AsyncResponseSlot(connection: connection)
        context.slot = slot
        context.phase = .awaitingAsync
        connection.suspend()
        // Register only after suspending: a slot in the registry may be resumed at any moment.
        guard suspended.register(slot) else {
            slot.abandon()
            return nil
        }
        return slot
    }

    /// Call after resume: queue the async handler's response (or 503 if shutdown gave up on it).
    private func deliverAsyncResult(_ context: RequestContext, connection: MHDConnection) -> Bool {
        guard let slot = context.slot else { return false }
        context.slot = nil
        suspended.unregister(slot)
        if let response = slot.take() {
            return respond(context, connection: connection, response, close: false)
        }
        return respond(context, connection: connection, .serverError(.serviceUnavailable, "server shutting down"), close: true)
    }

    /// Queues `response`; while draining, every response also closes its connection.
    private func respond(_ context: RequestContext, connection: MHDConnection, _ response: Response, close: Bool) -> Bool {
        context.phase = .responded
        context.status = response.status.rawValue
        context.responseBytes = response.body.count
        let closing = close || draining.load(ordering: .relaxed)
        if response.body.isEmpty, response.headers.isEmpty, !closing,
           let shared = emptyResponses.response(for: response.status.rawValue) {
            return connection.queue(status: response.status.rawValue, shared: shared)
        }
        return connection.queue(status: response.status.rawValue, headers: response.headers, body: response.body, closeConnection: closing)
    }
}
