import TandemCore

extension APNsSender {
    /// Sends `notification` until APNs decides, retrying transient failures; nil when abandoned.
    func deliver(_ notification: APNsNotification, route: Route, logger: Logger) async -> PushVerdict? {
        var renewedProviderToken = false
        return await settings.retry.run(clock: clock, deadline: route.deadline, logger: logger) { _ in
            await attempt(notification, route: route, renewedProviderToken: &renewedProviderToken, logger: logger)
        }
    }

    /// One attempt; an `ExpiredProviderToken` answer is followed at once by one more request with a new
    /// provider token (once per target: a second one fails the target).
    private func attempt(_ notification: APNsNotification, route: Route, renewedProviderToken: inout Bool,
                         logger: Logger) async -> PushAttemptResult {
        var jwt: String
        do {
            jwt = try tokens.token(for: route.credentials, now: clock.now())
        } catch {
            return keyFailure(error, route: route, logger: logger)
        }
        while true {
            if Task.isCancelled { return .abandoned }
            let response: HTTPClientResponse
            do {
                response = try await post(notification.request(baseURL: route.baseURL, jwt: jwt, timeout: settings.requestTimeout))
            } catch {
                return PushAttemptResult(transportFailure: error)
            }
            switch APNsOutcome(status: response.status, body: response.body, retryAfter: response.header("retry-after")) {
            case .accepted:
                return .decided(.accepted)
            case .tokenDead(let reason):
                logger.info("APNs declared the device token dead", ["reason": .string(reason)])
                return .decided(.rejected(.tokenDead))
            case .providerTokenExpired:
                guard !renewedProviderToken else {
                    logger.error("APNs refused a newly signed provider token as expired: check the server clock",
                                 ["key_id": .string(route.credentials.keyID)])
                    return .decided(.rejected(.other))
                }
                renewedProviderToken = true
                do {
                    jwt = try tokens.renew(for: route.credentials, replacing: jwt, now: clock.now())
                } catch {
                    return keyFailure(error, route: route, logger: logger)
                }
            case .providerTokenRejected(let reason):
                logger.error("APNs refused the provider token: check the app's key ID, team ID and .p8 key",
                             ["reason": .string(reason), "key_id": .string(route.credentials.keyID),
                              "team_id": .string(route.credentials.teamID)])
                return .decided(.rejected(.other))
            case .retry(let reason, let retryAfter):
                return .retry(reason: reason, retryAfter: retryAfter)
            case .failed(let reason):
                logger.warning("APNs refused the push", ["reason": .string(reason)])
                return .decided(.rejected(.other))
            }
        }
    }

    private func keyFailure(_ error: PushKeyError, route: Route, logger: Logger) -> PushAttemptResult {
        logger.error("APNs signing key unusable", ["key_id": .string(route.credentials.keyID), "error": .string(error.description)])
        return .decided(.rejected(.other))
    }
}
