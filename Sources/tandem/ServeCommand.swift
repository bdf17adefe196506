import Foundation
import TandemAPI
import TandemCore
import TandemEngine
import TandemHTTP
import TandemPostgres
import TandemProviders
import TandemStore

/// `tandem serve`: loads and validates the configuration and policies, opens the store, serves HTTP until
/// SIGTERM or SIGINT, then drains in-flight requests and closes the store.
struct ServeCommand {
    static let usage = """
        usage: tandem serve [--config PATH]

        Serves the HTTP API on the configured address. The configuration comes from --config, else
        $TANDEM_CONFIG, else Config/tandem.json; relative paths in it count from its own directory.
        TANDEM_LISTEN (host:port) and TANDEM_DB (SQLite path, relative to the working directory) override
        it. TANDEM_ADMIN_TOKEN turns on the admin API (/admin/accounts, /admin/apps, /admin/status, /admin/messages)
        and the dashboard (/dashboard) behind `Authorization: Bearer <token>`; without it those routes answer 403. On SIGTERM or SIGINT the server
        stops accepting connections, lets in-flight requests finish (http.shutdownGrace), closes the database
        and exits 0.

        """

    let arguments: [String]
    let environment: [String: String]

    func run() async throws(CommandFailure) {
        guard let parsed = try Arguments.parse(arguments, known: ["config"], usage: Self.usage) else { return }
        _ = try parsed.expectPositional(0, usage: "tandem serve [--config PATH]")
        let configPath = ConfigurationLoader.path(option: parsed.option("config"), environment: environment)
        let configuration = try ConfigurationLoader.configuration(at: configPath, environment: environment)
        let policies = try ConfigurationLoader.policies(in: configuration.policies)
        let signals = SignalWatcher()

        let logger = Logger(minimumLevel: configuration.log.level, format: configuration.log.format, now: ProcessIO.unixTime, sink: ProcessIO.writeError)
        let started = ContinuousClock.now
        // The address first, then the database: a second server fails before it touches anything.
        let listener = try Self.bind(configuration)
        // Closed on every way out before the server takes it (the server closes it at shutdown).
        var serving = false
        defer { if !serving { listener.close() } }
        let opened: StoreOpener.Serving
        var membership: ClusterMembership?
        if let cluster = configuration.cluster {
            let address = cluster.address ?? ListenAddress(host: configuration.listen.host, port: listener.port)
            (opened, membership) = try await StoreOpener.openPostgresForCluster(configuration.database, cluster: cluster,
                                                                               address: address, logger: logger)
        } else {
            opened = try await StoreOpener.openForServing(configuration.database, logger: logger)
        }
        let store = opened.store
        defer { withExtendedLifetime(opened.lock) {} }
        logger.info("policies loaded", [
            "default": .string(Self.summary(policies[.default])), "otp": .string(Self.summary(policies[.otp])),
            "critical": .string(Self.summary(policies[.critical])),
        ])

        let registry = MetricsRegistry()
        registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.", read: ProcessIO.residentMemoryBytes)
        let startTime = ProcessIO.unixTime()
        registry.gauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.") { startTime }
        let httpMetrics = HTTPMetrics(registry: registry)
        let backlogs = BacklogSampler(store: store)
        Self.registerStoreMetrics(registry, store: store, backlogs: backlogs)

        let webhookClient: HTTPClient
        // A cluster node's calls to the other nodes have a client of their own: many at once to each node (a
        // receipt waits for its owner's commit), never queued behind the webhooks' four connections per receiver.
        let clusterClient: HTTPClient?
        do {
            var clientConfiguration = HTTPClient.Configuration()
            clientConfiguration.defaultTimeout = configuration.statusReports.timeout
            clientConfiguration.maxConnectionsPerHost = 4
            webhookClient = try HTTPClient(configuration: clientConfiguration)
            if configuration.cluster != nil {
                var nodes = HTTPClient.Configuration()
                nodes.maxConnectionsPerHost = 64
                nodes.maxCachedConnections = 192
                clusterClient = try HTTPClient(configuration: nodes)
            } else {
                clusterClient = nil
            }
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot start the HTTP client: \(error)")
        }
        let pinKey: [UInt8]
        do {
            pinKey = try PinKeyLoader.load(configuration)
        } catch {
            await webhookClient.shutdown()
            await clusterClient?.shutdown()
            await store.close()
            throw error
        }
        let providers: ProviderStack
        do {
            providers = try ProviderStack(configuration: configuration, credentials: store, logger: logger)
        } catch {
            await webhookClient.shutdown()
            await clusterClient?.shutdown()
            await store.close()
            throw error
        }
        let stack = DeliveryStack(configuration: configuration, policies: policies, store: store, providers: providers,
                                  webhookPoster: HTTPWebhookPoster(client: webhookClient, timeout: configuration.statusReports.timeout,
                                                                   userAgent: "Tandem/\(TandemVersion.current)"),
                                  pinKey: pinKey, metrics: registry, deliveryMetrics: DeliveryMetrics(registry: registry),
                                  logger: logger, membership: membership,
                                  workPartitions: membership == nil ? nil : (store as? PGStore).map { store in
                                      { @Sendable partitions in store.setWorkPartitions(partitions) }
                                  })
        Self.registerEngineGauges(registry, scheduler: stack.scheduler, providers: providers)
        if let membership { Self.registerClusterMetrics(registry, membership: membership) }
        // A cluster node forwards calls for other nodes' deliveries to them, and applies theirs (docs/cluster.md).
        let clusterSignature = configuration.cluster.map { ClusterSignature(secret: Array($0.secret.value.utf8)) }
        if let membership, let clusterSignature, let clusterClient {
            let keeper = membership.keeper
            let forwarder = HTTPDeliveryForwarder(
                node: membership.node, signature: clusterSignature, owner: { keeper.ownerAddress(of: $0) },
                transport: { url, headers, body, timeout in
                    let response = try await clusterClient.send(HTTPClientRequest(
                        method: .post, url: url, headers: headers.map { HTTPClientHeader($0.0, $0.1) }, body: body, timeout: timeout,
                        version: .http1_1))
                    return (response.status, response.body)
                },
                now: { Timestamp(milliseconds: ProcessIO.unixMilliseconds()) })
            await stack.scheduler.setForwarder(forwarder)
        }
        do {
            try await stack.start()
            await backlogs.start()
        } catch {
            await webhookClient.shutdown()
            await clusterClient?.shutdown()
            await store.close()
            throw CommandFailure(.failure, "cannot recover in-flight deliveries: \(error)")
        }

        var router = HTTPRouter()
        stack.register(in: &router)
        HealthEndpoint(uptimeSeconds: { Self.seconds(since: started) }, databaseIsReachable: { store.isReachable() },
                       writeFailure: { store.writerStatistics.lastFailure },
                       cluster: Self.clusterHealth(membership, scheduler: stack.scheduler))
            .register(in: &router)
        if let clusterSignature {
            let scheduler = stack.scheduler
            ClusterForwardEndpoint(signature: clusterSignature, now: { Timestamp(milliseconds: ProcessIO.unixMilliseconds()) },
                                   apply: { try await scheduler.applyForwarded($0) }, logger: logger.with(["component": "cluster"]))
                .register(in: &router)
        }
        MetricsEndpoint(registry: registry, bearerToken: configuration.metrics.bearerToken?.value).register(in: &router)
        OpenAPIDocument().register(in: &router)
        let adminToken = environment["TANDEM_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let admin = AdminAppsEndpoint(registry: store, adminToken: adminToken,
                                      now: { Timestamp(milliseconds: ProcessIO.unixMilliseconds()) },
                                      isRegularFile: { KeyFiles.isRegularFile($0) }, logger: logger,
                                      prefixBlocks: stack.deviceAPI, cospace: store, mymsp: store)
        admin.register(in: &router)
        admin.registerBWMI(store, in: &router)
        AdminSCGEndpoint(admin: admin, tokens: store, senderIDs: store).register(in: &router)
        AdminStatusEndpoint(admin: admin) { await stack.status(uptimeSeconds: Self.seconds(since: started)) }.register(in: &router)
        let dashboardToken = configuration.dashboard.token?.value
        AdminMessagesEndpoint(search: store, adminToken: adminToken, dashboardToken: dashboardToken, logger: logger).register(in: &router)
        DashboardEndpoint(registry: registry, adminToken: adminToken, dashboardToken: dashboardToken, logger: logger).register(in: &router)
        logger.info("admin API", ["enabled": .bool(adminToken != nil), "dashboard": .bool(adminToken != nil || dashboardToken != nil)])

        let accessLogger = logger.with(["log": "access"])
        let accessLog = configuration.log.accessLog
        let server = HTTPServer(configuration: Self.httpConfiguration(configuration), router: router) { access in
            httpMetrics.record(access)
            if accessLog {
                accessLogger.info("request", [
                    "method": .string(access.method), "route": .string(access.route), "status": .int(Int64(access.status)),
                    "durationMs": .double((access.durationSeconds * 1_000_000).rounded() / 1_000),
                    "bytesIn": .int(Int64(access.requestBytes)), "bytesOut": .int(Int64(access.responseBytes)),
                ])
            }
        }
        registry.gauge("tandem_http_requests_in_flight",
                       help: "Requests received and not yet completed, including the scrape itself.") {
            Double(server.inFlightRequests)
        }
        let port: UInt16
        do {
            port = try server.start(on: listener)
            serving = true
        } catch {
            await stack.stop(grace: .zero)
            await backlogs.stop()
            await webhookClient.shutdown()
            await clusterClient?.shutdown()
            await store.close()
            throw CommandFailure(.failure, "cannot listen on \(configuration.listen): \(error)")
        }
        let address = ListenAddress(host: configuration.listen.host, port: port)
        logger.info("listening", ["address": .string(address.description), "threads": .int(Int64(configuration.http.threads)),
                                  "providers": .string(configuration.providers.summary)])
        ProcessIO.writeOutput("""
            Tandem \(TandemVersion.current) listening on http://\(address)
            Try: curl -s http://\(address)/healthz

            """)

        // A serving lock lost while the process lives (its PostgreSQL connection ended) no longer keeps a second
        // server off the database: this one stops, as if told to, and its supervisor starts it again.
        let lockWatch = opened.stillHeld.map { stillHeld in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    if Task.isCancelled { return }
                    if await !stillHeld() {
                        logger.error("serving lock lost", ["reason": .string("its connection to the database ended; stopping so that no two servers act on one database")])
                        kill(getpid(), SIGTERM)
                        return
                    }
                }
            }
        }
        defer { lockWatch?.cancel() }
        let signal = await signals.wait()
        logger.info("shutting down", ["signal": .int(Int64(signal)), "inFlight": .int(Int64(server.inFlightRequests))])
        await server.shutdown(gracePeriod: configuration.http.shutdownGrace)
        await stack.stop(grace: configuration.http.shutdownGrace)
        await backlogs.stop()
        await webhookClient.shutdown()
        await clusterClient?.shutdown()
        await store.close()
        logger.info("stopped", [:])
    }

    /// The scheduler's and the providers' gauges: deliveries in flight, timers by horizon, SMPP binds, push clients.
    static func registerEngineGauges(_ registry: MetricsRegistry, scheduler: Scheduler, providers: ProviderStack) {
        registry.gauge("tandem_deliveries_in_flight", help: "Deliveries not final, held by the scheduler.") {
            Double(scheduler.gauges.inFlight)
        }
        registry.gauge("tandem_timers_pending", help: "Timers on the scheduler's wheel, by how soon they are due.",
                       labels: ["horizon"]) {
            let counts = scheduler.gauges.timersByHorizon
            guard counts.count == Scheduler.Gauges.horizons.count + 1 else { return [] }
            return zip(Scheduler.Gauges.horizons.map(\.name) + [Scheduler.Gauges.beyondName], counts).map { ([$0], Double($1)) }
        }
        if providers.smppBinds != nil {
            registry.gauge("tandem_smpp_binds_up", help: "SMPP binds currently bound.") { Double(providers.smppBinds?.bindsUp ?? 0) }
        }
        let push = providers.pushStatistics
        guard !push.isEmpty else { return }
        registry.counter("tandem_push_connections_opened_total", help: "Connections the push clients opened, by provider.",
                         labels: ["provider"], read: { push.map { ([$0.provider], Double($0.read().connectionsOpened)) } })
        registry.gauge("tandem_push_requests_active", help: "Push requests on the wire or waiting for a connection, by provider.",
                       labels: ["provider"]) { push.map { ([$0.provider], Double($0.read().activeTransfers)) } }
    }

    /// What `/healthz` says of a cluster node: its name and the partitions it holds and has loaded (it acts on them).
    static func clusterHealth(_ membership: ClusterMembership?, scheduler: Scheduler) -> (@Sendable () -> HealthEndpoint.ClusterHealth)? {
        guard let membership else { return nil }
        return { HealthEndpoint.ClusterHealth(node: membership.node.description,
                                              partitions: scheduler.actingPartitions.filter { membership.epoch(of: $0) != nil }) }
    }

    /// A cluster node's lease gauges and counters.
    static func registerClusterMetrics(_ registry: MetricsRegistry, membership: ClusterMembership) {
        registry.gauge("tandem_cluster_partitions_held", help: "Partitions whose lease this node holds and may act on.") {
            Double(membership.held.count)
        }
        registry.counter("tandem_cluster_lease_rounds_total", help: "Lease rounds run, by outcome.", labels: ["outcome"]) {
            let counters = membership.counters
            return [(["ok"], Double(counters.rounds - counters.failedRounds)), (["failed"], Double(counters.failedRounds))]
        }
        registry.counter("tandem_cluster_partitions_changed_total",
                         help: "Partition leases this node gained (claims and takeovers), lost, or released to another node.",
                         labels: ["change"]) {
            let counters = membership.counters
            return [(["gained"], Double(counters.gained)), (["lost"], Double(counters.lost)), (["released"], Double(counters.released))]
        }
    }

    /// Binds the listen address, or fails in words (a taken port names the way out).
    static func bind(_ configuration: Configuration) throws(CommandFailure) -> HTTPListener {
        do {
            return try HTTPListener(host: configuration.listen.host, port: configuration.listen.port,
                                    backlog: HTTPServer.Configuration().listenBacklog)
        } catch .bindFailed(let host, let port, 98) {
            throw CommandFailure(.failure, "cannot listen on \(host):\(port): address already in use (another tandem serve?) — set TANDEM_LISTEN=host:port to use another address")
        } catch {
            throw CommandFailure(.failure, "cannot listen on \(configuration.listen): \(error)")
        }
    }

    static func httpConfiguration(_ configuration: Configuration) -> HTTPServer.Configuration {
        var http = HTTPServer.Configuration()
        http.host = configuration.listen.host
        http.port = configuration.listen.port
        http.threads = configuration.http.threads
        http.maxBodyBytes = configuration.http.maxBodyBytes
        http.maxHeaderBytes = configuration.http.maxHeaderBytes
        http.maxURLBytes = configuration.http.maxURLBytes
        http.connectionTimeoutSeconds = Int(configuration.http.connectionTimeout.components.seconds)
        http.maxConnections = configuration.http.maxConnections
        http.maxConnectionsPerAddress = configuration.http.maxConnectionsPerAddress
        http.maxBufferedBodyBytes = configuration.http.maxBufferedBodyBytes
        switch configuration.http.eventLoop {
        case .epoll: http.eventLoop = .epoll
        case .poll: http.eventLoop = .poll
        }
        return http
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static func summary(_ policy: Policy) -> String {
        let ttl = policy.pushTTL.duration.map(DurationText.format) ?? "providerMaximum"
        let ack = policy.fallback.afterNoDeliveryAck.map(DurationText.format) ?? "-"
        let read = policy.fallback.afterNoRead.map(DurationText.format) ?? "-"
        return "ttl=\(ttl) onFailure=\(policy.fallback.onPushFailure) noAck=\(ack) noRead=\(read) manual=\(policy.manualFallback.rawValue)"
    }
}
