import TandemCore
import TandemEngine
import TandemPostgres

extension StoreOpener {
    /// The PostgreSQL store `database.url` names, for an administration command: waits up to
    /// `database.connectTimeout` for a server that is starting; a URL libpq refuses, a server that never answers
    /// and a refused login are one line and exit status 78.
    static func openPostgres(_ database: Configuration.Database) async throws(CommandFailure) -> any TandemDatabase {
        let target = try target(database, applicationName: "tandem")
        do {
            return try await PGStore.open(target, readers: min(database.readers, 2), commitMaxWrites: database.commitMaxWrites,
                                          waitingUpTo: database.connectTimeout)
        } catch {
            throw failure(error, database)
        }
    }

    /// The PostgreSQL store for `tandem serve`: the serving lock first (a second server is refused naming the
    /// holder), then the store (its schema migrated in one transaction).
    static func openPostgresForServing(_ database: Configuration.Database, logger: Logger) async throws(CommandFailure) -> Serving {
        // Waits for a starting server here, so that the lock is taken on a server that answers.
        let (store, target) = try await openServing(database, applicationName: "tandem serve")
        let lock: PGServingLock
        do {
            lock = try await PGServingLock.take(target)
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot serve: \(error)")
        }
        do {
            try await store.advanceDeliveryKeys()
        } catch {
            lock.release()
            await store.close()
            throw CommandFailure(.failure, "cannot serve: \(error)")
        }
        let version = (try? await store.schemaVersion()).map { Int64($0) } ?? -1
        logger.info("store open", ["backend": .string("postgresql"), "url": .string(database.url ?? ""), "schemaVersion": .int(version)])
        return Serving(store: store, lock: lock, stillHeld: { await lock.isHeld() })
    }

    /// The PostgreSQL store for a cluster node's `tandem serve`: no serving lock (the nodes share the database, each
    /// acting only on the partitions it leases), the schema migrated (two nodes starting at once: one migrates, the
    /// other waits and finds it done), and the node's lease membership on a connection of its own.
    static func openPostgresForCluster(_ database: Configuration.Database, cluster: Configuration.Cluster, address: ListenAddress,
                                       logger: Logger) async throws(CommandFailure) -> (Serving, ClusterMembership) {
        let (store, target) = try await openServing(database, applicationName: "tandem serve \(cluster.node)")
        let membership: ClusterMembership
        do {
            // One connect, once, at start-up (the store's own connections were just made the same way).
            let statements = try PGPartitionLeases(target: target, node: cluster.node,
                                                   lifetimeMilliseconds: Int(cluster.leaseLifetime.milliseconds))
            let planner = try LeasePlanner(node: cluster.node, partitions: PartitionMap(count: PartitionMap.defaultCount),
                                           maxClaimsPerRound: cluster.maxClaimsPerRound, maxReleasesPerRound: cluster.maxReleasesPerRound)
            let keeper = PartitionLeaseKeeper(statements: statements, planner: planner, address: address.description,
                                              lifetime: cluster.leaseLifetime, margin: cluster.safetyMargin)
            membership = ClusterMembership(keeper: keeper, interval: cluster.renewInterval,
                                           logger: logger.with(["component": "cluster", "node": .string(cluster.node.description)]))
        } catch {
            await store.close()
            throw CommandFailure(.failure, "cannot join the cluster: \(error)")
        }
        let version = (try? await store.schemaVersion()).map { Int64($0) } ?? -1
        logger.info("store open", ["backend": .string("postgresql"), "url": .string(database.url ?? ""), "schemaVersion": .int(version),
                                   "cluster": .string(cluster.node.description), "address": .string(address.description)])
        return (Serving(store: store, lock: membership), membership)
    }

    /// The store `tandem serve` runs on (all of `database.readers`), waiting up to `database.connectTimeout` for a
    /// server that is starting, with the target it was opened on.
    private static func openServing(_ database: Configuration.Database,
                                    applicationName: String) async throws(CommandFailure) -> (PGStore, PGConnectionTarget) {
        let target = try target(database, applicationName: applicationName)
        do {
            return (try await PGStore.open(target, readers: database.readers, commitMaxWrites: database.commitMaxWrites,
                                           waitingUpTo: database.connectTimeout), target)
        } catch {
            throw failure(error, database)
        }
    }

    private static func target(_ database: Configuration.Database, applicationName: String) throws(CommandFailure) -> PGConnectionTarget {
        let url = database.url ?? ""
        if let problem = PGConnectionTarget.problem(in: url) {
            throw CommandFailure(.configuration, "database.url: \(problem)")
        }
        return PGConnectionTarget(url, password: database.password?.value, applicationName: applicationName)
    }

    /// A store that did not open, in one line: a schema newer than this build is a failure of the deployment;
    /// everything else (unreachable, login refused, no such database) is the configuration's.
    private static func failure(_ error: PGError, _ database: Configuration.Database) -> CommandFailure {
        let url = database.url ?? ""
        if case .notApplied = error {
            return CommandFailure(.failure, "cannot use the PostgreSQL database \(url): \(error)")
        }
        return CommandFailure(.configuration, "cannot open the PostgreSQL database \(url) (waited up to \(database.connectTimeout)): \(error)")
    }
}
