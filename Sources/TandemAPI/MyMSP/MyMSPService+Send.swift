import TandemCore
import TandemEngine

extension MyMSPService {
    /// `send`: the quota (11), the recipients (28 when none is an active DPN recipient of the user), then
    /// one push-only ``SendCommand`` through the intake; `A` and the msgno once committed.
    func send(_ request: MyMSPCodec.Send, user: MyMSPUser, sender: (app: App, account: Account)?) async throws -> Reply {
        let now = now()
        guard limits.quotaAllows(user: user.id, now: now) else { throw MyMSPError.quotaExceeded }
        let recipients = try await directory.mymspActiveRecipients(user: user.id, ids: request.recipientIDs, groups: request.groups)
        guard !recipients.isEmpty else { throw MyMSPError.noRecipients }
        guard let (app, account) = sender, !account.disabled else {
            logger.error("myMSP user without a usable app or account", ["user": .string(user.name), "app": .string(user.app.text)])
            throw MyMSPError.unknown
        }
        let msgno = try await numbers.next()
        let command = Self.command(request, msgno: msgno, recipients: recipients, app: app, messageType: configuration.messageType)
        // The app as the user cache holds it (at most 5 s old): the intake does not read it again.
        let result = await intake.submit(IntakeRequest(account: account, messages: [command], knownApps: [app])) { outcome in
            guard case .accepted(_, let outcomes)? = outcome.messages.first, outcomes.contains(.accepted) else {
                return .refuse(WireReply(status: 200, contentType: MyMSPAnswer.contentType, body: MyMSPAnswer.refused(.noRecipients)))
            }
            return .commit(WireReply(status: 200, contentType: MyMSPAnswer.contentType, body: MyMSPAnswer.accepted([String(msgno)])))
        }
        switch result {
        case .stored(_, let reply), .replayed(let reply):
            limits.recordSent(user: user.id, now: now)
            return Reply(status: reply.status, body: reply.body)
        case .refused(let reply):
            return Reply(status: reply.status, body: reply.body)
        case .idempotencyKeyReused, .idempotencyKeyInProgress, .failed, .unavailable:
            // myMSP claims no idempotency key, so the two key results cannot happen; a failure is logged by the intake.
            throw MyMSPError.unknown
        }
    }

    /// The notification as the intake's command: push only, to the recipients' registrations, the msgno as
    /// custom data and in `extra`; `collapsekey` → FCM `android.collapse_key` and APNs `apns-collapse-id`
    /// (when ≤ 64 bytes), `timetolive` → FCM `android.ttl` and APNs `apns-expiration`,
    /// `restrictedpackagename` → FCM `android.restricted_package_name`, `delaywhileidle=true` → Android
    /// priority `normal`.
    static func command(_ request: MyMSPCodec.Send, msgno: Int64, recipients: [MyMSPRecipient], app: App,
                        messageType: AppMessageType) -> SendCommand {
        var presentation = PushPresentation()
        presentation.customData = [JSONMember(key: "msgno", value: .number(String(msgno)))]
        if let key = request.collapseKey {
            presentation.android.collapseKey = key
            if key.utf8.count <= 64 { presentation.apnsCollapseID = key }
        }
        if let ttl = request.timeToLive {
            presentation.android.ttl = .seconds(ttl)
            presentation.apnsTimeToLive = .seconds(ttl)
        }
        presentation.android.restrictedPackageName = request.restrictedPackageName
        if request.delayWhileIdle { presentation.android.priority = .normal }
        return SendCommand(api: "mymsp", recipients: recipients.map { .registration($0.device) }, sender: app.name,
                           body: request.message, presentation: presentation, appKey: app.key, messageType: messageType,
                           allowedChannels: .only([.push]), extra: "{\"msgno\":\(msgno)}")
    }
}
