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
            switch try await writing({ try await registry.acknowledgeBWMI(delivery: key, device: device, at: current, hybrid: false) }) {
            case .alreadyAcknowledged:
                return Response.empty(.created)
            case .acknowledged:
                // The delivery may be final already (expired, or its push failed): the receipt then changes nothing.
                _ = try await writing {
                    try await scheduler.recordReceipt([.readReported(device.deviceID)], for: key,
                                                      from: Scheduler.ReceiptSender(app: app.key, recipient: .device(device.deviceID)))
                }
            case .unknown:
                try await acknowledgeUnrecorded(key, device: device, app: app, at: current)
            }
            sendBadge(to: device, app: app)
            return Response.empty(.created)
        } catch {
            return error.response
        }
    }

    /// A notification without a row: a delivery to this device still in flight (acknowledged before the
    /// service recorded it after the intake's commit), else — when the app trusts phones — a CM message to
    /// the device's phone. The read receipt of the delivery if it is one of those; else 404.
    private func acknowledgeUnrecorded(_ key: DeliveryKey, device: BWMIDevice, app: App, at now: Timestamp) async throws(Refusal) {
        var senders = [Scheduler.ReceiptSender(app: app.key, recipient: .device(device.deviceID))]
        if let phone = device.phone, try reading({ try registry.bwmiSettings(app: app.key) }).trustPhones {
            senders.append(Scheduler.ReceiptSender(app: app.key, recipient: .msisdn(phone)))
        }
        for sender in senders {
            let outcome = try await writing {
                try await scheduler.recordReceipt([.readReported(device.deviceID)], for: key, from: sender)
            }
            switch outcome {
            case .recorded:
                _ = try await writing { try await registry.acknowledgeBWMI(delivery: key, device: device, at: now, hybrid: true) }
                return
            case .notTheRecipient, .notInFlight:
                continue
            }
        }
        throw unknownNotification
    }

    private var unknownNotification: Refusal {
        Refusal(.notFound, "no notification with this nid for this device")
    }

    /// The badge update after an acknowledgement: a fire-and-forget push (through the intake, push only,
    /// the app's default message type) whose payload is the badge alone (``BWMIPush/badgeOnly``). Sent
    /// after the answer; a failure is logged.
    func sendBadge(to device: BWMIDevice, app: App) {
        Task {
            do {
                guard device.active, let account = try directory.account(productToken: app.account) else { return }
                var presentation = PushPresentation()
                presentation.bwmi = .badgeOnly
                presentation.badge = try registry.liveBWMICount(device: device, at: now())
                let command = SendCommand(api: "bwmi", recipients: [.registration(device.deviceID)], sender: "BWMI", body: "",
                                          presentation: presentation, appKey: app.key, allowedChannels: .only([.push]))
                let result = await intake.submit(IntakeRequest(account: account, messages: [command])) { _ in
                    .commit(WireReply(status: 201, contentType: "application/json", body: []))
                }
                if case .failed = result { logger.error("BWMI badge update not sent", ["device": .string(device.deviceID.text)]) }
            } catch {
                logger.error("BWMI badge update not sent", ["device": .string(device.deviceID.text), "error": .string("\(error)")])
            }
        }
    }
}
