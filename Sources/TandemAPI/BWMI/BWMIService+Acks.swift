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
    /// One durable write per ack: the notification's row is acknowledged inside the commit of the delivery's
    /// read receipt (``Scheduler/submitReceipt(_:for:from:acknowledgement:completion:)``), which the scheduler
    /// batches with every other receipt. Answered through `responder` like the device API's receipts: the
    /// checks run on the calling (HTTP worker) thread, the scheduler answers once the commit is known — no task
    /// per ack, as long as the registry answers the app and the device without waiting
    /// (``BWMIRegistry/cachedBWMIApp(key:)``, ``BWMIRegistry/cachedBWMIDevice(app:token:)``: SQLite always does);
    /// else the checks wait for the asynchronous reads in a task. Only an ack whose receipt the scheduler did not
    /// apply takes the slower way (``acknowledgeUnapplied(_:device:app:trustPhones:at:outcome:)``).
    ///
    /// A CM message that reached the device through its phone (the app trusts phones) has no row until it
    /// is acknowledged: the scheduler checks the delivery against the device's phone and app, and only a
    /// delivery in flight is acknowledged that way (so is a notification acknowledged before its row was
    /// recorded, checked against the device itself).
    public func acknowledge(_ request: Request, responder: Responder) {
        let checked: CheckedAck
        do throws(Refusal) {
            guard let found = try checkAckWithoutWaiting(request) else {
                Task {
                    do throws(Refusal) {
                        submit(try await self.checkAck(request), responder: responder)
                    } catch {
                        responder.respond(error.response)
                    }
                }
                return
            }
            checked = found
        } catch {
            return responder.respond(error.response)
        }
        submit(checked, responder: responder)
    }

    /// An ack that passed every check: its app, the app's settings, the device and the delivery its `nid` names.
    private struct CheckedAck {
        let app: BWMIApp
        let device: BWMIDevice
        let key: DeliveryKey
    }

    /// The checks, with the reads the registry answers without waiting; nil when one of them cannot be (nothing
    /// was done yet: ``checkAck(_:)`` starts over).
    private func checkAckWithoutWaiting(_ request: Request) throws(Refusal) -> CheckedAck? {
        guard let app = try bwmiAppOfPathWithoutWaiting(request) else { return nil }
        let ack = try decoded { () throws(BWMICodec.Problem) in try BWMICodec.ack(request.body) }
        guard let device = try reading({ try registry.cachedBWMIDevice(app: app.app.key, token: ack.device) }) else { return nil }
        return try checked(ack, app: app, device: device)
    }

    /// The checks, waiting for the reads.
    private func checkAck(_ request: Request) async throws(Refusal) -> CheckedAck {
        let app = try await bwmiAppOfPath(request)
        let ack = try decoded { () throws(BWMICodec.Problem) in try BWMICodec.ack(request.body) }
        let device = try await reading { try await registry.bwmiDevice(app: app.app.key, token: ack.device) }
        return try checked(ack, app: app, device: device)
    }

    private func checked(_ ack: BWMICodec.Ack, app: BWMIApp, device: BWMIDevice?) throws(Refusal) -> CheckedAck {
        guard let device else { throw Refusal(.notFound, "no device with this token is registered for this app") }
        guard let number = Int64(ack.nid), number > 0 else { throw unknownNotification }
        return CheckedAck(app: app, device: device, key: DeliveryKey(number))
    }

    /// Hands the checked ack to the scheduler, which answers `responder` once its commit is known.
    private func submit(_ checked: CheckedAck, responder: Responder) {
        let (app, settings, device, key) = (checked.app.app, checked.app.settings, checked.device, checked.key)
        let current = now()
        // The scheduler checks the receipt against this device, so a nid of another device records nothing (and
        // writes no acknowledgement); a delivery already final records nothing either.
        let write = BWMIAcknowledgementWrite(delivery: key, device: device.deviceID, at: current)
        scheduler.submitReceipt([.readReported(device.deviceID)], for: key,
                                from: Scheduler.ReceiptSender(app: app.key, recipient: .device(device.deviceID)),
                                acknowledgement: write) { [self] outcome in
            switch outcome {
            case .success(.recorded):
                responder.respond(acknowledged(write.outcome, device: device, app: app, liveCount: write.liveCount))
            case .success(let unapplied):
                Task { responder.respond(await self.acknowledgeUnapplied(key, device: device, app: app, trustPhones: settings.trustPhones, at: current,
                                                                           outcome: unapplied)) }
            case .failure(let error):
                responder.respond(storeFailure(error).response)
            }
        }
    }

    /// The answer to an ack whose row was written: 201, and the badge update unless nothing changed (`liveCount`: the
    /// live count the ack's commit left, if it counted it).
    private func acknowledged(_ acknowledgement: BWMIAcknowledgement, device: BWMIDevice, app: App, liveCount: Int? = nil) -> Response {
        if acknowledgement != .alreadyAcknowledged { sendBadge(to: device, app: app, liveCount: liveCount) }
        return Response.empty(.created)
    }

    /// An ack whose receipt the scheduler did not apply as this device's (`outcome`): when the app trusts phones,
    /// a CM message in flight to the device's phone (its receipt and acknowledgement again one commit); else the
    /// notification's row alone — acknowledged if it is live (a delivery already final), 201 if it was already,
    /// 404 if the device has none.
    private func acknowledgeUnapplied(_ key: DeliveryKey, device: BWMIDevice, app: App, trustPhones: Bool, at now: Timestamp,
                                      outcome: Scheduler.ReceiptOutcome) async -> Response {
        do throws(Refusal) {
            if outcome == .notTheRecipient, trustPhones, let phone = device.phone {
                let write = BWMIAcknowledgementWrite(delivery: key, device: device.deviceID, at: now)
                let hybrid = try await writing {
                    try await scheduler.recordReceipt([.readReported(device.deviceID)], for: key,
                                                      from: Scheduler.ReceiptSender(app: app.key, recipient: .msisdn(phone)),
                                                      acknowledgement: write)
                }
                if hybrid == .recorded { return acknowledged(write.outcome, device: device, app: app, liveCount: write.liveCount) }
            }
            let acknowledgement = try await writing {
                try await registry.acknowledgeBWMI(delivery: key, device: device, at: now, hybrid: false)
            }
            guard acknowledgement != .unknown else { throw unknownNotification }
            return acknowledged(acknowledgement, device: device, app: app)
        } catch {
            return error.response
        }
    }

    private var unknownNotification: Refusal {
        Refusal(.notFound, "no notification with this nid for this device")
    }

    /// The badge update after an acknowledgement: a badge-only push (``BWMIPush/badgeOnly``, the badge the
    /// device's live count when it is sent) rendered by the push sender like any other, with the policy of the
    /// app's default message type. It is no message: no row, no delivery, no receipt is expected, and it is
    /// not retried. Sent after the answer, in a batch with the other updates asked for meanwhile; per device at
    /// most one is queued or sent at a time, and the acks that arrive meanwhile get one more update afterwards, with
    /// the count of that moment (``BWMIBadgeUpdates``).
    ///
    /// The first update carries `liveCount` when the ack's commit counted it (no read of its own); a later one reads
    /// the count when it is sent.
    ///
    /// Not guaranteed: that the update arrives (a rejection or a failure is logged, a crash forgets it; the next
    /// notification or ack carries the right count again); that a token the provider declares dead here is
    /// invalidated (the next managed notification to it does that); that a notification sent between the ack's
    /// commit and its update is counted (its own push carries the right badge; the next ack's update does too).
    func sendBadge(to device: BWMIDevice, app: App, liveCount: Int? = nil) {
        guard device.active, badges.request(BWMIBadgeUpdates.Update(device: device, app: app, liveCount: liveCount)) else { return }
        startBadgeSender()
    }

    private func startBadgeSender() {
        Task { await self.sendQueuedBadges() }
    }

    /// One sender: every update queued by now, as one batch (one push call when the sender takes batches, else one
    /// task per push); then the updates the acks that came in meanwhile asked for, by another sender.
    func sendQueuedBadges() async {
        let updates = badges.take()
        guard !updates.isEmpty else { return }
        // One id for the batch: a badge update is no message, and no two of a batch go to one device.
        var generator = SystemRandomNumberGenerator()
        let messageID = GUID.random(using: &generator)
        var requests: [PushRequest] = []
        requests.reserveCapacity(updates.count)
        for update in updates {
            if let request = await badgeRequest(update, messageID: messageID) { requests.append(request) }
        }
        let verdicts = await pushAll(requests)
        for (request, verdict) in zip(requests, verdicts) {
            guard let device = request.targets.first?.deviceID, case .rejected(let rejection)? = verdict[device] else { continue }
            logger.warning("BWMI badge update rejected", ["device": .string(device.text), "reason": .string("\(rejection)")])
        }
        var another = false
        for update in updates {
            if badges.finished(update) { another = true }
        }
        if another { startBadgeSender() }
    }

    /// The badge-only push of `update`, with its count (read now if the ack's commit did not count it); nil when the
    /// count could not be read (logged).
    private func badgeRequest(_ update: BWMIBadgeUpdates.Update, messageID: GUID) async -> PushRequest? {
        let (device, app) = (update.device, update.app)
        let badge: Int
        do {
            if let liveCount = update.liveCount { badge = liveCount } else { badge = try await registry.liveBWMICount(device: device, at: now()) }
        } catch {
            logger.error("BWMI badge update not sent", ["device": .string(device.deviceID.text), "error": .string("\(error)")])
            return nil
        }
        var presentation = PushPresentation()
        presentation.bwmi = .badgeOnly
        presentation.badge = badge
        let content = MessageContent(messageID: messageID, sender: "BWMI", body: "", reference: nil, app: app.key,
                                     presentation: presentation)
        let target = PushTarget(deviceID: device.deviceID, platform: device.platform, token: device.token)
        return PushRequest(key: Self.badgeUpdateKey, recipient: .device(device.deviceID), targets: [target],
                           policy: policies[app.defaultMessageType], content: content)
    }

    /// `requests`' verdicts, in order: in one call to a sender that takes batches, else each push in a task of its own.
    private func pushAll(_ requests: [PushRequest]) async -> [[DeviceID: PushVerdict]] {
        guard !requests.isEmpty else { return [] }
        if let batches = push as? any BatchPushSender { return await batches.send(batch: requests) }
        return await withTaskGroup(of: (Int, [DeviceID: PushVerdict]).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { [push] in (index, await push.send(request)) }
            }
            var verdicts = [[DeviceID: PushVerdict]](repeating: [:], count: requests.count)
            for await (index, verdict) in group { verdicts[index] = verdict }
            return verdicts
        }
    }

    /// The delivery key of a badge-only update: none (0 is never a delivery's id).
    static let badgeUpdateKey = DeliveryKey(0)
}
