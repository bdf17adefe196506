import Testing
@testable import TandemCore

/// The `cluster` section: one node of several on one PostgreSQL database (docs/cluster.md).
@Suite("Configuration: cluster")
struct ClusterConfigurationTests {
    static let secret = ["SECRET": String(repeating: "s", count: 32)]
    static let postgres = #""database": {"url": "postgres://tandem@127.0.0.1/tandem"}"#

    @Test("a node with its secret, defaults for the rest; TANDEM_CLUSTER_NODE names the node; address defaults to the listen address")
    func node() throws {
        let json = #"{\#(Self.postgres), "cluster": {"node": "a", "secret": {"env": "SECRET"}}}"#
        let configuration = try loadTestConfiguration(json, environment: Self.secret)
        let cluster = try #require(configuration.cluster)
        #expect(cluster.node == (try NodeID("a")))
        #expect(cluster.secret.value == Self.secret["SECRET"])
        #expect(cluster.address == nil)
        #expect(cluster.renewInterval == .seconds(2) && cluster.leaseLifetime == .seconds(6) && cluster.safetyMargin == .seconds(2))
        let renamed = try loadTestConfiguration(json, environment: Self.secret.merging(["TANDEM_CLUSTER_NODE": "node-7"]) { $1 })
        #expect(renamed.cluster?.node == (try NodeID("node-7")))
        let tuned = try loadTestConfiguration(#"""
            {\#(Self.postgres), "cluster": {"node": "b", "secret": {"env": "SECRET"}, "address": "10.0.0.5:8080",
             "renewInterval": "500ms", "leaseLifetime": "3s", "safetyMargin": "1s", "maxClaimsPerRound": 8}}
            """#, environment: Self.secret)
        #expect(tuned.cluster?.address == ListenAddress(host: "10.0.0.5", port: 8080))
        #expect(tuned.cluster?.leaseLifetime == .seconds(3) && tuned.cluster?.maxClaimsPerRound == 8)
        #expect(try loadTestConfiguration("{}").cluster == nil)
    }

    @Test("refused by name: no PostgreSQL, a short or missing secret, a bad node name, leases that lapse between renewals, a node name without a cluster")
    func refusals() {
        func problem(_ json: String, _ environment: [String: String] = Self.secret) -> String {
            testConfigurationProblem(json, environment: environment) ?? "loaded"
        }
        #expect(problem(#"{"cluster": {"node": "a", "secret": {"env": "SECRET"}}}"#).contains("needs a PostgreSQL database"))
        #expect(problem(#"{\#(Self.postgres), "cluster": {"node": "a", "secret": {"env": "SECRET"}}}"#, ["SECRET": "short"])
            .contains("at least 32 bytes"))
        #expect(problem(#"{\#(Self.postgres), "cluster": {"node": "a"}}"#).contains("secret"))
        #expect(problem(#"{\#(Self.postgres), "cluster": {"node": "a b", "secret": {"env": "SECRET"}}}"#).contains("cluster.node"))
        #expect(problem(#"{\#(Self.postgres), "cluster": {"node": "a", "secret": {"env": "SECRET"}, "renewInterval": "5s"}}"#)
            .contains("longer than renewInterval + safetyMargin"))
        #expect(problem("{}", ["TANDEM_CLUSTER_NODE": "a"]).contains("add a cluster section"))
    }
}
