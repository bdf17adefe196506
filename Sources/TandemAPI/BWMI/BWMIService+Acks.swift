import TandemCore
import TandemEngine
import TandemHTTP

/// `PUT /acks` and the badge update that follows it.
extension BWMIService {
    /// `PUT /bwmi/{appKey}/acks` `{"nid","did","bid"}` → 201, no body: the notification is no longer live,
    /// its delivery gets the device's read receipt, and the device gets a badge-only push with its new
    /// live count. The same acknowledgement again → 201 (nothing changes, no push). A `nid` that is not
    /// this device's (another device, another app, or none) → 404.
    ///
    /// A CM message that reached the device through its phone (the app trusts phones) has no row until it
    /// is acknowledged: the scheduler checks the delivery against the device's phone and app, and only a
    /// delivery in flight is acknowledged that way (so is a notification acknowledged before its row was
    /// recorded, checked against the device itself).
    public func acknowledge(_ request: Request) async -> Response {
        do throws(Refusal) {
            let app = try appOfPath(request)
            let ack = try decoded { () throws(BWMICodec.Problem) in try BWMICodec.ack(request.body) }
            guard let device = try reading({ try registry.bwmiDevice(app: app.key, token: ack.device) }) else {
                throw Refusal(.notFound, "no device with this token is registered for this app")
            }
            guard let number = Int64(ack.nid), number > 0 else { throw unknownNotification }
            let key = DeliveryKey(number)
            let current = now()
            // The notification's row and the delivery's read receipt are written at once (each joins its own
            // group commit): one commit wait per ack, not two. The scheduler checks the receipt against this
            // device, so a nid of another device records nothing; a delivery already final records nothing.
            let sender = Scheduler.ReceiptSender(app: app.key, recipient: .device(device.deviceID))
            async let acknowledged = attempt {
                try await registry.acknowledgeBWMI(delivery: key, device: device, at: current, hybrid: false)
            }
            async let receipt = attempt {
                try await scheduler.recordReceipt([.readReported(device.deviceID)], for: key, from: sender)
            }
            let (acknowledgement, receiptOutcome) = await (acknowledged, receipt)
            switch try stored(acknowledgement) {
            case .alreadyAcknowledged:
                _ = try stored(receiptOutcome)
                return Response.empty(.created)
            case .acknowledged:
                _ = try stored(receiptOutcome)
            case .unknown:
                try await acknowledgeUnrecorded(key, device: device, app: app, at: current, deviceReceipt: try stored(receiptOutcome))
            }
            sendBadge(to: device, app: app)
            return Response.empty(.created)
        } catch {
            return error.response
        }
    }

    /// A notification without a row: a delivery to this device still in flight (acknowledged before the
    /// service recorded it after the intake's commit; `deviceReceipt` is the scheduler's answer to the receipt
    /// as this device's), else — when the app trusts phones — a CM message to the device's phone. The row of
    /// the delivery if it is one of those; else 404.
    private func acknowledgeUnrecorded(_ key: DeliveryKey, device: BWMIDevice, app: App, at now: Timestamp,
                                       deviceReceipt: Scheduler.ReceiptOutcome) async throws(Refusal) {
        var recorded = deviceReceipt == .recorded
        if !recorded, let phone = device.phone, try reading({ try registry.bwmiSettings(app: app.key) }).trustPhones {
            let outcome = try await writing {
                try await scheduler.recordReceipt([.readReported(device.deviceID)], for: key,
                                                  from: Scheduler.ReceiptSender(app: app.key, recipient: .msisdn(phone)))
            }
            recorded = outcome == .recorded
        }
        guard recorded else { throw unknownNotification }
        _ = try await writing { try await registry.acknowledgeBWMI(delivery: key, device: device, at: now, hybrid: true) }
    }

    private func attempt<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    private func stored<T>(_ result: Result<T, any Error>) throws(Refusal) -> T {
        switch result {
        case .success(let value): return value
        case .failure(let error): throw storeFailure(error)
        }
    }

    private var unknownNotification: Refusal {
        Refusal(.notFound, "no notification with this nid for this device")
    }

    /// The badge update after an acknowledgement: a badge-only push (``BWMIPush/badgeOnly``, the badge the
    /// device's live count when it is sent) rendered by the push sender like any other, with the policy of the
    /// app's default message type. It is no message: no row, no delivery, no receipt is expected, and it is
    /// not retried. Sent after the answer; per device at most one is sent at a time, and the acks that arrive
    /// meanwhile get one more update afterwards, with the count of that moment (``BWMIBadgeUpdates``).
    ///
    /// Not guaranteed: that the update arrives (a rejection or a failure is logged, a crash forgets it; the next
    /// notification or ack carries the right count again); that a token the provider declares dead here is
    /// invalidated (the next managed notification to it does that).
    func sendBadge(to device: BWMIDevice, app: App) {
        guard device.active, badges.request(device.deviceID) else { return }
        Task {
            repeat {
                await pushBadge(to: device, app: app)
            } while badges.finished(device.deviceID)
        }
    }

    /// One badge-only push with the device's live count now.
    func pushBadge(to device: BWMIDevice, app: App) async {
        let badge: Int
        do {
            badge = try registry.liveBWMICount(device: device, at: now())
        } catch {
            logger.error("BWMI badge update not sent", ["device": .string(device.deviceID.text), "error": .string("\(error)")])
            return
        }
        var presentation = PushPresentation()
        presentation.bwmi = .badgeOnly
        presentation.badge = badge
        var generator = SystemRandomNumberGenerator()
        let content = MessageContent(messageID: GUID.random(using: &generator), sender: "BWMI", body: "", reference: nil,
                                     app: app.key, presentation: presentation)
        let target = PushTarget(deviceID: device.deviceID, platform: device.platform, token: device.token)
        let request = PushRequest(key: Self.badgeUpdateKey, recipient: .device(device.deviceID), targets: [target],
                                  policy: policies[app.defaultMessageType], content: content)
        let verdicts = await push.send(request)
        if case .rejected(let rejection)? = verdicts[device.deviceID] {
            logger.warning("BWMI badge update rejected", ["device": .string(device.deviceID.text),
                                                          "reason": .string("\(rejection)")])
        }
    }

    /// The delivery key of a badge-only update: none (0 is never a delivery's id).
    static let badgeUpdateKey = DeliveryKey(0)
}
