import TandemCore

/// Sends one push to each of its targets at once and gathers the verdicts, for the APNs and FCM senders.
enum PushFanOut {
    /// Runs `send` for every target (inline for a single target, otherwise one child task each) with a
    /// logger naming the device. A target whose `send` returns nil (cancelled, shut down) has no verdict.
    static func verdicts(for targets: [PushTarget], logger: Logger,
                         send: @escaping @Sendable (PushTarget, Logger) async -> PushVerdict?) async -> [DeviceID: PushVerdict] {
        func deviceLogger(_ target: PushTarget) -> Logger { logger.with(["device": .string(target.deviceID.description)]) }
        if targets.count == 1, let target = targets.first {
            return await send(target, deviceLogger(target)).map { [target.deviceID: $0] } ?? [:]
        }
        return await withTaskGroup(of: (DeviceID, PushVerdict?).self) { group in
            for target in targets {
                let targetLogger = deviceLogger(target)
                group.addTask { (target.deviceID, await send(target, targetLogger)) }
            }
            var verdicts: [DeviceID: PushVerdict] = [:]
            for await (device, verdict) in group {
                if let verdict { verdicts[device] = verdict }
            }
            return verdicts
        }
    }
}

extension PushFanOut {
    /// The same verdict for every target (a push refused before anything was sent).
    static func all(_ targets: [PushTarget], _ verdict: PushVerdict) -> [DeviceID: PushVerdict] {
        Dictionary(targets.map { ($0.deviceID, verdict) }, uniquingKeysWith: { first, _ in first })
    }

    /// The credentials `push`'s app has for one platform (`pick`), or — logged — the verdicts for every
    /// target when there are none: no app named, none stored (`.other`), or the store unreadable (`.transient`).
    static func credentials<Credentials>(
        for push: PushRequest, from source: any PushCredentialsSource, platform: String, logger: Logger,
        _ pick: (AppPushCredentials) -> Credentials?
    ) async -> Result<Credentials, Refused> {
        guard let app = push.content.app else {
            logger.warning("push rejected: the message names no app")
            return .failure(Refused(verdicts: all(push.targets, .rejected(.other))))
        }
        let stored: AppPushCredentials?
        do {
            stored = try await source.pushCredentials(for: app)
        } catch {
            logger.error("push credentials could not be read", ["app": .string(app.description), "error": .string("\(error)")])
            return .failure(Refused(verdicts: all(push.targets, .rejected(.transient))))
        }
        guard let credentials = stored.flatMap(pick) else {
            logger.warning("push rejected: the app has no \(platform) credentials", ["app": .string(app.description)])
            return .failure(Refused(verdicts: all(push.targets, .rejected(.other))))
        }
        return .success(credentials)
    }

    /// Why a push went no further: the verdict for each of its targets.
    struct Refused: Error {
        let verdicts: [DeviceID: PushVerdict]
    }
}
