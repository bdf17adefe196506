import Foundation
import Synchronization
import TandemCore

/// `tandem bench apns`: pushes per second through one ``APNsSender`` over HTTP/2 to an APNs endpoint —
/// normally the local fake, started standalone:
///
///     python Tests/peers/apns_fake.py --generate /tmp/apns-bench --delay-ms 0   # prints PORT n
///
/// then `Options(url: "https://127.0.0.1:<n>", keyPath: "/tmp/apns-bench/AuthKey.p8",
/// caFile: "/tmp/apns-bench/cert.pem")` (the key ID, team ID and topic default to the fake's).
///
/// Every push has one target (the engine's common case) and OTP's policy; `concurrency` pushes are kept
/// in flight. A warm-up (connection, TLS, the provider JWT) runs first and is not counted. The figures
/// include the fake's own cost — a Python `h2` server is slower than Apple — so they bound the sender
/// from below. Not guaranteed: repeatable figures on a shared machine.
public enum APNsBenchmark {
    public struct Options: Sendable {
        public var url: String
        public var keyPath: String
        public var caFile: String?
        public var keyID = "BENCHKEY01"
        public var teamID = "BENCHTEAM1"
        public var topic = "com.example.tandem.bench"
        /// Pushes measured (after the warm-up).
        public var pushes = 20_000
        public var warmUp = 500
        /// Pushes in flight at once.
        public var concurrency = 200
        /// The client's `maxConcurrentStreams` per connection.
        public var maxConcurrentStreams = 100
        /// The client's `maxConnectionsPerHost`.
        public var connections = 1

        public init(url: String, keyPath: String, caFile: String?) {
            self.url = url
            self.keyPath = keyPath
            self.caFile = caFile
        }
    }

    public struct Result: Sendable, Hashable {
        public var pushes: Int
        public var accepted: Int
        public var seconds: Double
        public var pushesPerSecond: Double
        /// The most push streams open at once on one connection, as the server saw them (the fake's
        /// `GET /stats`); nil when the server does not say (Apple does not).
        public var mostConcurrentStreams: Int?
        /// The most pushes waiting for an answer at once, as the sender saw them: on the wire or queued
        /// for a stream beyond `maxConcurrentStreams`.
        public var mostRequestsInFlight: Int
        public var connectionsOpened: Int
        public var providerTokensSigned: Int

        /// One line for the bench report.
        public var summary: String {
            let rate = Int(pushesPerSecond.rounded())
            let time = (seconds * 1_000).rounded() / 1_000
            let streams = mostConcurrentStreams.map { "up to \($0) concurrent streams" } ?? "concurrent streams unknown"
            return "apns: \(pushes) pushes in \(time) s = \(rate) pushes/s (\(accepted) accepted) over "
                + "\(connectionsOpened) HTTP/2 connection(s), \(streams) (\(mostRequestsInFlight) pushes in flight), "
                + "\(providerTokensSigned) provider token(s)"
        }
    }

    /// Runs the benchmark; `clock` is the wall clock (JWT `iat`, `apns-expiration`).
    public static func run(_ options: Options, clock: any SchedulerClock, logger: Logger = .discarding)
        async throws(APNsSenderError) -> Result {
        var settings = APNsSender.Settings()
        settings.productionURL = options.url
        settings.sandboxURL = options.url
        settings.client.caFile = options.caFile
        settings.client.maxConcurrentStreams = options.maxConcurrentStreams
        settings.client.maxConnectionsPerHost = options.connections
        var generator = SystemRandomNumberGenerator()
        let app = AppKey(GUID.random(using: &generator))
        let credentials = APNsCredentials(keySource: .file(options.keyPath), keyID: options.keyID, teamID: options.teamID,
                                          topic: options.topic)
        let sender = try APNsSender(settings: settings, credentials: StaticPushCredentials([app: AppPushCredentials(apns: credentials)]),
                                    clock: clock, logger: logger)
        let policy = PolicySet.specDefaults.otp
        let message = MessageContent(messageID: GUID.random(using: &generator), sender: "Tandem",
                                     body: "Your code is 123456", reference: nil, app: app)
        let msisdn = MSISDN("+31612345678")
        @Sendable func push(_ index: Int) -> PushRequest? {
            var generator = SystemRandomNumberGenerator()
            guard let msisdn, let token = PushToken("ok" + String(index, radix: 16)) else { return nil }
            return PushRequest(key: DeliveryKey(Int64(index)), recipient: .msisdn(msisdn),
                               targets: [PushTarget(deviceID: DeviceID(GUID.random(using: &generator)), platform: .iOS, token: token)],
                               policy: policy, content: message)
        }
        _ = await drive(count: options.warmUp, offset: 0, concurrency: options.concurrency, sender: sender, push: push)
        let started = ContinuousClock.now
        let accepted = await drive(count: options.pushes, offset: options.warmUp, concurrency: options.concurrency,
                                   sender: sender, push: push)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let statistics = sender.statistics
        await sender.shutdown()
        return Result(pushes: options.pushes, accepted: accepted, seconds: seconds,
                      pushesPerSecond: seconds > 0 ? Double(options.pushes) / seconds : 0,
                      mostConcurrentStreams: await serverStreams(options),
                      mostRequestsInFlight: statistics.mostRequestsInFlight,
                      connectionsOpened: statistics.http.connectionsOpened,
                      providerTokensSigned: statistics.providerTokensSigned)
    }

    /// Sends pushes `offset ..< offset+count` with `concurrency` workers; returns how many were accepted.
    private static func drive(count: Int, offset: Int, concurrency: Int, sender: APNsSender,
                              push: @escaping @Sendable (Int) -> PushRequest?) async -> Int {
        let next = Cursor()
        return await withTaskGroup(of: Int.self) { group in
            for _ in 0..<max(1, min(concurrency, count)) {
                group.addTask {
                    var accepted = 0
                    while true {
                        let index = next.take()
                        guard index < count, let request = push(offset + index) else { return accepted }
                        if await sender.send(request).values.first == .accepted { accepted += 1 }
                    }
                }
            }
            return await group.reduce(0, +)
        }
    }

    /// The fake's `max_concurrent_streams` from `GET /stats`, or nil.
    private static func serverStreams(_ options: Options) async -> Int? {
        struct Stats: Decodable { let max_concurrent_streams: Int }
        var configuration = HTTPClient.Configuration()
        configuration.caFile = options.caFile
        guard let client = try? HTTPClient(configuration: configuration) else { return nil }
        defer { Task { await client.shutdown() } }
        guard let response = try? await client.send(HTTPClientRequest(url: options.url + "/stats", timeout: .seconds(5))),
              response.status == 200 else { return nil }
        return (try? JSONDecoder().decode(Stats.self, from: Data(response.body)))?.max_concurrent_streams
    }

    /// The next push index, shared by the workers.
    private final class Cursor: Sendable {
        private let value = Atomic<Int>(0)
        func take() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
    }
}
