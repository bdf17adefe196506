import TandemCore
import TandemEngine
import TandemHTTP

/// `POST /bwmi/{appKey}/notifications`: what a BusinessWorks process sends, through ``MessageIntake``.
extension BWMIService {
    /// Authenticated by the account's product token in `X-CM-PRODUCTTOKEN` (401 when missing or unknown,
    /// 404 when the path's app is not the account's). Each target resolves to the app's active BWMI
    /// devices (a token, or every device claiming the phone or email); each device gets its own message
    /// (one ``SendCommand`` per device, all committed together) so that its payload carries its own badge:
    /// for a managed notification, the device's live count including this one. The answer (201) lists
    /// each device reached with its `nid`, and each target that reached none.
    public func send(_ request: Request) async -> Response {
        do throws(Refusal) {
            let account = try await authenticate(request)
            let app = try await appOfPath(request)
            guard app.account == account.productToken else { throw Refusal(.notFound, "no BWMI app at this base path") }
            let notification = try decoded { () throws(BWMICodec.Problem) in try BWMICodec.notification(request.body) }
            let (devices, unreached) = try await resolve(notification.targets, app: app)
            let sentAt = now()
            let messageType = notification.messageType ?? app.defaultMessageType
            var commands: [SendCommand] = []
            var badges: [Int?] = []
            for device in devices {
                var presentation = PushPresentation()
                if notification.fireAndForget {
                    presentation.bwmi = .fireAndForget(bid: notification.bid)
                    presentation.badge = notification.badge
                } else {
                    presentation.bwmi = .managed(bid: notification.bid, sentAt: sentAt.milliseconds)
                    presentation.badge = try await reading { try await registry.liveBWMICount(device: device, at: sentAt) } + 1
                }
                presentation.sound = notification.sound.map(PushSound.named)
                badges.append(presentation.badge)
                commands.append(SendCommand(api: "bwmi", recipients: [.registration(device.deviceID)], sender: "BWMI",
                                            body: notification.text, presentation: presentation, appKey: app.key,
                                            messageType: notification.messageType, allowedChannels: .only([.push]),
                                            reference: notification.bid, extra: extra(notification)))
            }
            guard !commands.isEmpty else {
                return Response.json(.created, BWMICodec.sent([], unreached: unreached))
            }
            let result = await intake.submit(IntakeRequest(account: account, messages: commands)) { _ in
                .commit(WireReply(status: 201, contentType: "application/json", body: []))
            }
            if case .unavailable = result { throw storeFailure(NoPartitionHeld()) }  // a cluster node: 503, try again
            guard case .stored(let outcome, _) = result else { throw storeFailure(BWMISendFailure.notStored) }
            var sent: [BWMICodec.Sent] = []
            var missed = unreached
            var managed: [BWMINotification] = []
            let lifetime = policies[messageType].lifetime.duration ?? configuration.providerMaximumLifetime
            for (index, message) in outcome.messages.enumerated() {
                let device = devices[index]
                switch message {
                case .rejected(let rejection):
                    missed.append(BWMICodec.Unreached(target: .device(device.token), reason: rejection.details))
                case .accepted(let id, let recipients):
                    if case .rejected(let rejection)? = recipients.first {
                        missed.append(BWMICodec.Unreached(target: .device(device.token), reason: rejection.details))
                        continue
                    }
                    guard let key = try await reading({ try await ledger.message(account: account.productToken, id: id) })?.recipients.first?.key else {
                        throw storeFailure(BWMISendFailure.noDelivery(id))
                    }
                    sent.append(BWMICodec.Sent(token: device.token, nid: key, badge: badges[index]))
                    if !notification.fireAndForget {
                        managed.append(BWMINotification(delivery: key, device: device.deviceID, text: notification.text,
                                                        bid: notification.bid, sentAt: sentAt, expiresAt: sentAt + lifetime))
                    }
                }
            }
            _ = try await writing { try await registry.recordBWMINotifications(managed) }
            return Response.json(.created, BWMICodec.sent(sent, unreached: missed))
        } catch {
            return error.response
        }
    }

    private func authenticate(_ request: Request) async throws(Refusal) -> Account {
        guard let text = request.headers["x-cm-producttoken"], let token = ProductToken(text) else {
            throw Refusal(.unauthorized, "the X-CM-PRODUCTTOKEN header must carry the account's product token")
        }
        switch try await reading({ try await authenticator.authenticate(token) }) {
        case .authenticated(let account): return account
        case .unknown, .disabled: throw Refusal(.unauthorized, "unknown or disabled product token")
        }
    }

    /// The active devices the targets name, each once, in the order first named; and the targets that
    /// named none.
    private func resolve(_ targets: [BWMICodec.Target], app: App) async throws(Refusal) -> ([BWMIDevice], [BWMICodec.Unreached]) {
        var devices: [BWMIDevice] = []
        var seen: Set<DeviceID> = []
        var unreached: [BWMICodec.Unreached] = []
        for target in targets {
            let found: [BWMIDevice]
            switch target {
            case .device(let token): found = try await reading { try await registry.bwmiDevice(app: app.key, token: token) }.map { [$0] } ?? []
            case .phone(let phone): found = try await reading { try await registry.bwmiDevices(app: app.key, phone: phone) }
            case .email(let email): found = try await reading { try await registry.bwmiDevices(app: app.key, email: email) }
            }
            let active = found.filter(\.active)
            if active.isEmpty {
                unreached.append(BWMICodec.Unreached(target: target, reason: found.isEmpty
                    ? "no device of this app" : "every device is deregistered or its token was declared invalid"))
            }
            for device in active where seen.insert(device.deviceID).inserted { devices.append(device) }
        }
        return (devices, unreached)
    }

    /// BWMI's fields the engine does not act on, stored with the message: `{"bid","faf"}`.
    private func extra(_ notification: BWMICodec.Notification) -> String {
        var out = "{\"faf\":\(notification.fireAndForget)"
        if let bid = notification.bid {
            out += ",\"bid\":"
            JSONText.appendString(bid, to: &out)
        }
        return out + "}"
    }
}

/// What went wrong inside a send, for the log (the client gets a plain 500).
enum BWMISendFailure: Error {
    case notStored
    case noDelivery(GUID)
}
