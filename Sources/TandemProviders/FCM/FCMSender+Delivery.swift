import TandemCore

extension FCMSender {
    /// Sends `message` until FCM decides, retrying transient failures; nil when abandoned.
    func deliver(_ message: FCMMessage, route: Route, logger: Logger) async -> PushVerdict? {
        var reauthenticated = false
        return await settings.retry.run(clock: clock, deadline: route.deadline, logger: logger) { _ in
            await attempt(message, route: route, reauthenticated: &reauthenticated, logger: logger)
        }
    }

    /// One attempt; a 401 `UNAUTHENTICATED` answer is followed at once by one more send with a newly
    /// fetched access token (once per target: a second one fails the target).
    private func attempt(_ message: FCMMessage, route: Route, reauthenticated: inout Bool,
                         logger: Logger) async -> PushAttemptResult {
        var accessToken: String
        switch await route.loaded.tokens.token() {
        case .success(let token): accessToken = token
        case .failure(let error): return tokenFailure(error, route: route, logger: logger)
        }
        while true {
            if Task.isCancelled { return .abandoned }
            // Rounded to the nearest second: the first attempt, a few milliseconds after the push began,
            // still says "30s" for a 30-second TTL; a retry says what is left.
            let remaining = (route.expiry - clock.now() + .milliseconds(500)).components.seconds
            let request = HTTPClientRequest(method: .post, url: route.url,
                                            headers: [HTTPClientHeader("authorization", "Bearer " + accessToken),
                                                      HTTPClientHeader("content-type", "application/json; charset=UTF-8")],
                                            body: message.encoded(ttlSeconds: remaining),
                                            timeout: settings.requestTimeout, version: .http2)
            let response: HTTPClientResponse
            do {
                response = try await client.send(request)
            } catch {
                return PushAttemptResult(transportFailure: error)
            }
            switch FCMOutcome(status: response.status, body: response.body, retryAfter: response.header("retry-after")) {
            case .accepted:
                return .decided(.accepted)
            case .tokenDead(let reason):
                logger.info("FCM declared the registration token dead", ["reason": .string(reason)])
                return .decided(.rejected(.tokenDead))
            case .unauthenticated:
                guard !reauthenticated else {
                    logger.error("FCM refused a newly fetched access token", ["project": .string(route.loaded.account.projectID)])
                    return .decided(.rejected(.other))
                }
                reauthenticated = true
                switch await route.loaded.tokens.token(replacing: accessToken) {
                case .success(let token): accessToken = token
                case .failure(let error): return tokenFailure(error, route: route, logger: logger)
                }
            case .retry(let reason, let retryAfter):
                return .retry(reason: reason, retryAfter: retryAfter)
            case .failed(let reason):
                logger.warning("FCM refused the push", ["reason": .string(reason)])
                return .decided(.rejected(.other))
            }
        }
    }

    private func tokenFailure(_ error: FCMTokenError, route: Route, logger: Logger) -> PushAttemptResult {
        switch error {
        case .key, .refused:
            logger.error("no FCM access token: check the app's service account",
                         ["project": .string(route.loaded.account.projectID), "error": .string(error.description)])
            return .decided(.rejected(.other))
        case .unavailable(let reason, let retryAfter):
            return .retry(reason: reason, retryAfter: retryAfter)
        case .abandoned:
            return .abandoned
        }
    }
}
