import Foundation
import Testing
@testable import TandemCore

@Suite("Simulator configuration")
struct SimulatorConfigurationTests {
    private func simulator(_ json: String) throws(ConfigurationError) -> Configuration.Simulator {
        try loadTestConfiguration(#"{"simulator": \#(json)}"#).simulator
    }

    private func problem(_ json: String) -> String? {
        testConfigurationProblem(#"{"simulator": \#(json)}"#)
    }

    private static let token = PushToken("abc")!
    private static func msisdn(_ text: String) -> MSISDN { MSISDN(text)! }

    @Test("defaults: dead, noack and noread tokens have their own rule; the rest is acked in 200 ms and read 1 s later")
    func defaults() throws {
        let defaults = try simulator("{}")
        #expect(defaults == Configuration.Simulator())
        #expect(defaults.push.latency == .milliseconds(5))
        #expect(defaults.push.seed == 0)
        #expect(defaults.push.rules.map(\.tokenPrefix) == ["dead", "noack", "noread"])
        #expect(defaults.push.rules.map(\.behaviour) == [.tokenDead, .neverAck, .ack(after: .milliseconds(200))])
        #expect(defaults.push.default == .ackAndRead(ackAfter: .milliseconds(200), readAfter: .seconds(1)))
        #expect(defaults.sms.latency == .milliseconds(5))
        #expect(defaults.sms.reportAfter == .milliseconds(500))
        #expect(defaults.sms.rules == [Configuration.SimulatedSMSRule(msisdnSuffix: "000", outcome: .failed)])
        #expect(defaults.logEvents)
    }

    @Test("the nested form decodes every field, and rules replace the built-in ones")
    func nested() throws {
        let decoded = try simulator("""
            {"push": {"latency": "2ms", "seed": 9223372036854775807,
                      "rules": [{"tokenPrefix": "x", "msisdnSuffix": "78", "probability": 0.25, "behaviour": "neverAck"},
                                {"tokenPrefix": "slow", "behaviour": "ackAndRead", "ackAfter": "3s"},
                                {"msisdnSuffix": "9", "behaviour": "transientFailure"}],
                      "default": {"behaviour": "ack", "ackAfter": "50ms"}},
             "sms": {"latency": "0ms", "reportAfter": "2s",
                     "rules": [{"msisdnSuffix": "001", "outcome": "expired", "after": "10s"},
                               {"msisdnSuffix": "002", "outcome": "none"},
                               {"msisdnSuffix": "003", "outcome": "rejected"}]},
             "logEvents": false, "_comment": "comments are allowed"}
            """)
        #expect(decoded.push.latency == .milliseconds(2))
        #expect(decoded.push.seed == UInt64(Int64.max))
        #expect(decoded.push.rules == [
            Configuration.SimulatedPushRule(tokenPrefix: "x", msisdnSuffix: "78", probability: 0.25, behaviour: .neverAck),
            Configuration.SimulatedPushRule(tokenPrefix: "slow", behaviour: .ackAndRead(ackAfter: .seconds(3), readAfter: .seconds(1))),
            Configuration.SimulatedPushRule(msisdnSuffix: "9", behaviour: .transientFailure),
        ])
        #expect(decoded.push.default == .ack(after: .milliseconds(50)))
        #expect(decoded.sms.latency == .zero)
        #expect(decoded.sms.reportAfter == .seconds(2))
        #expect(decoded.sms.rules == [
            Configuration.SimulatedSMSRule(msisdnSuffix: "001", outcome: .expired, after: .seconds(10)),
            Configuration.SimulatedSMSRule(msisdnSuffix: "002", outcome: .none),
            Configuration.SimulatedSMSRule(msisdnSuffix: "003", outcome: .rejected),
        ])
        #expect(!decoded.logEvents)
        #expect(try simulator(#"{"push": {"rules": []}, "sms": {"rules": []}}"#).push.rules.isEmpty)
    }

    @Test("the old flat keys still set push.latency, sms.latency and sms.reportAfter")
    func flatKeys() throws {
        let decoded = try simulator(#"{"pushLatency": "1ms", "smsLatency": "3ms", "smsReportAfter": "50ms"}"#)
        #expect(decoded.push.latency == .milliseconds(1))
        #expect(decoded.sms.latency == .milliseconds(3))
        #expect(decoded.sms.reportAfter == .milliseconds(50))
        #expect(decoded.push.rules == Configuration.SimulatedPushRule.builtIn)
        #expect((decoded.pushLatency, decoded.smsLatency, decoded.smsReportAfter) == (.milliseconds(1), .milliseconds(3), .milliseconds(50)))
    }

    @Test("unknown keys, bad values and out-of-range values are refused with the key named", arguments: [
        (#"{"push": {"latncy": "1ms"}}"#, #"simulator.push.latncy: unknown key (did you mean "latency"?)"#),
        (#"{"push": {"rules": [{"behaviour": "ack", "tokenprefix": "x"}]}}"#, #"simulator.push.rules[0].tokenprefix: unknown key (did you mean "tokenPrefix"?)"#),
        (#"{"push": {"default": {"behaviour": "ack", "probability": 0.5}}}"#, "simulator.push.default.probability: unknown key"),
        (#"{"sms": {"rules": [{"msisdnSuffix": "1", "outcome": "failed", "delay": "1s"}]}}"#, "simulator.sms.rules[0].delay: unknown key"),
        (#"{"push": {"latency": "2m"}}"#, "simulator.push.latency: must be between 0us and 1m"),
        (#"{"push": {"seed": -1}}"#, "simulator.push.seed: must be between 0 and 9223372036854775807, got -1"),
        (#"{"push": {"rules": [{"behaviour": "explode"}]}}"#, #"simulator.push.rules[0].behaviour: expected one of "ack", "ackAndRead", "neverAck", "tokenDead", "transientFailure", got "explode""#),
        (#"{"push": {"rules": [{"tokenPrefix": "dead"}]}}"#, "simulator.push.rules[0].behaviour: missing"),
        (#"{"push": {"rules": [{"behaviour": "neverAck", "probability": 1.5}]}}"#, "simulator.push.rules[0].probability: must be between 0 and 1, got 1.5"),
        (#"{"push": {"rules": [{"behaviour": "neverAck", "probability": -0.1}]}}"#, "must be between 0 and 1"),
        (#"{"push": {"rules": [{"behaviour": "neverAck", "msisdnSuffix": "+31"}]}}"#, #"simulator.push.rules[0].msisdnSuffix: expected 1 to 15 digits, got "+31""#),
        (#"{"push": {"rules": [{"behaviour": "neverAck", "tokenPrefix": ""}]}}"#, "simulator.push.rules[0].tokenPrefix: expected 1 to 64 printable ASCII"),
        (#"{"push": {"rules": [{"behaviour": "neverAck", "ackAfter": "1s"}]}}"#, #"simulator.push.rules[0].ackAfter: applies only to behaviours "ack" and "ackAndRead""#),
        (#"{"push": {"default": {"behaviour": "ack", "readAfter": "1s"}}}"#, #"simulator.push.default.readAfter: applies only to behaviour "ackAndRead""#),
        (#"{"push": {"default": {"behaviour": "tokenDead", "readAfter": "1s"}}}"#, "simulator.push.default.readAfter: applies only"),
        (#"{"push": {"default": {"behaviour": "ackAndRead", "readAfter": "8d"}}}"#, "simulator.push.default.readAfter: must be between 0us and 7d"),
        (#"{"sms": {"reportAfter": "2d"}}"#, "simulator.sms.reportAfter: must be between 0us and 1d"),
        (#"{"sms": {"rules": [{"msisdnSuffix": "000", "outcome": "lost"}]}}"#, #"simulator.sms.rules[0].outcome: expected one of "delivered", "failed", "expired", "none", "rejected", got "lost""#),
        (#"{"sms": {"rules": [{"outcome": "failed"}]}}"#, "simulator.sms.rules[0].msisdnSuffix: missing"),
        (#"{"sms": {"rules": [{"msisdnSuffix": "1", "outcome": "none", "after": "1s"}]}}"#, "simulator.sms.rules[0].after: applies only to outcomes that report"),
        (#"{"pushLatency": "1ms", "push": {}}"#, "simulator.pushLatency: the old spelling of push.latency"),
        (#"{"smsReportAfter": "1s", "sms": {}}"#, "simulator.smsReportAfter: the old spelling of sms.reportAfter"),
        (#"{"logEvents": "yes"}"#, "simulator.logEvents: expected true or false"),
    ])
    func refused(json: String, expected: String) {
        let message = problem(json)
        #expect(message?.contains(expected) == true, "\(message ?? "accepted")")
        #expect(message?.hasPrefix("Config/test.json: simulator.") == true, "\(message ?? "accepted")")
    }

    @Test("a rule matches when every condition it names holds; the token prefix ignores ASCII case")
    func ruleMatching() {
        let dead = Configuration.SimulatedPushRule(tokenPrefix: "dead", behaviour: .tokenDead)
        #expect(dead.matches(token: PushToken("dead-1")!, msisdn: Self.msisdn("+31612345678")))
        #expect(dead.matches(token: PushToken("DEADbeef")!, msisdn: Self.msisdn("+31612345678")))
        #expect(!dead.matches(token: PushToken("dea")!, msisdn: Self.msisdn("+31612345678")))
        #expect(!dead.matches(token: PushToken("xdead")!, msisdn: Self.msisdn("+31612345678")))
        let both = Configuration.SimulatedPushRule(tokenPrefix: "a", msisdnSuffix: "78", behaviour: .neverAck)
        #expect(both.matches(token: PushToken("abc")!, msisdn: Self.msisdn("+31612345678")))
        #expect(!both.matches(token: PushToken("abc")!, msisdn: Self.msisdn("+31612345679")))
        #expect(!both.matches(token: PushToken("bbc")!, msisdn: Self.msisdn("+31612345678")))
        let any = Configuration.SimulatedPushRule(behaviour: .neverAck)
        #expect(any.matches(token: Self.token, msisdn: Self.msisdn("+31612345678")))
        let sms = Configuration.SimulatedSMSRule(msisdnSuffix: "000", outcome: .failed)
        #expect(sms.matches(Self.msisdn("+31612345000")))
        #expect(!sms.matches(Self.msisdn("+31612340001")))
    }

    @Test("only delivered, failed and expired are reported")
    func reportedOutcomes() {
        #expect(Configuration.SimulatedSMSOutcome.allCases.map(\.reported) == [.delivered, .failed, .expired, nil, nil])
    }
}
