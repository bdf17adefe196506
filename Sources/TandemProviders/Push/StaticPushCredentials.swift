import TandemCore

/// Fixed push credentials per app, for benchmarks, tools and tests (the server reads them from the
/// store instead).
public struct StaticPushCredentials: PushCredentialsSource {
    public let credentials: [AppKey: AppPushCredentials]

    public init(_ credentials: [AppKey: AppPushCredentials]) {
        self.credentials = credentials
    }

    public func pushCredentials(for app: AppKey) async throws -> AppPushCredentials? {
        credentials[app]
    }
}
