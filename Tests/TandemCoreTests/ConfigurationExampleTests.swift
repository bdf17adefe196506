import Foundation
import Testing
@testable import TandemCore

/// `Config/production.example.json` is the reference for every key: a key a decoder accepts but the example
/// leaves out fails here, and so does a key the example has that no decoder takes.
@Suite("Configuration example")
struct ConfigurationExampleTests {
    /// Each object of the example (by path; `[]` for an array's elements), the keys its decoder accepts.
    static let keysByPath: [String: [String]] = {
        func keys<K: CodingKey & CaseIterable>(_ type: K.Type) -> [String] { K.allCases.map(\.stringValue) }
        typealias C = Configuration
        let http2 = keys(C.HTTP2Limits.CodingKeys.self)
        let secret = keys(SecretReference.CodingKeys.self)
        let budget = keys(C.Budget.CodingKeys.self)
        var table: [String: [String]] = [
            "": keys(C.CodingKeys.self),
            "http": keys(C.HTTP.CodingKeys.self),
            "database": keys(C.Database.CodingKeys.self),
            "providers": keys(C.Providers.CodingKeys.self),
            "providers.push": keys(C.PushProviders.CodingKeys.self),
            "providers.push.apns": keys(C.APNs.CodingKeys.self),
            "providers.push.apns.http": http2,
            "providers.push.fcm": keys(C.FCM.CodingKeys.self),
            "providers.push.fcm.http": http2,
            "providers.sms": keys(C.SMSProvider.CodingKeys.self),
            "providers.sms.smpp": keys(C.SMPP.CodingKeys.self),
            "providers.sms.smpp.password": secret,
            "providers.sms.kannel": keys(C.Kannel.CodingKeys.self),
            "providers.sms.kannel.password": secret,
            "providers.sms.kannel.dlrToken": secret,
            "providers.voice": keys(C.VoiceProvider.CodingKeys.self),
            "providers.voice.webhook": keys(C.VoiceWebhook.CodingKeys.self),
            "providers.voice.webhook.token": secret,
            "metrics": keys(C.Metrics.CodingKeys.self),
            "metrics.bearerToken": secret,
            "database.password": secret,
            "dashboard": keys(C.Dashboard.CodingKeys.self),
            "dashboard.token": secret,
            "log": keys(C.Log.CodingKeys.self),
            "scheduler": keys(C.SchedulerSettings.CodingKeys.self),
            "gateway": keys(C.Gateway.CodingKeys.self),
            "statusReports": keys(C.StatusReports.CodingKeys.self),
            "simulator": keys(C.Simulator.CodingKeys.self).filter { !oldSpellings.contains($0) },
            "simulator.push": keys(C.SimulatedPush.CodingKeys.self),
            "simulator.push.rules[]": keys(C.SimulatedPushRule.CodingKeys.self),
            "simulator.push.default": keys(C.SimulatedPush.DefaultBehaviour.CodingKeys.self),
            "simulator.sms": keys(C.SimulatedSMS.CodingKeys.self),
            "simulator.sms.rules[]": keys(C.SimulatedSMSRule.CodingKeys.self),
            "deviceAPI": keys(C.DeviceAPI.CodingKeys.self),
            "deviceAPI.verification": keys(C.Verification.CodingKeys.self),
            "deviceAPI.verification.pinKey": secret,
            "deviceAPI.limits": keys(C.Limits.CodingKeys.self),
            "deviceAPI.protection": keys(C.Protection.CodingKeys.self),
            "deviceAPI.protection.conversion": keys(PinSMSGuard.ConversionRule.CodingKeys.self),
            "mymsp": keys(C.MyMSP.CodingKeys.self),
            "cluster": keys(C.Cluster.CodingKeys.self),
            "cluster.secret": secret,
        ]
        for name in ["subscribesPerClientIP", "subscribesPerUser", "getsPerClientIP", "getsPerUser"] { table["mymsp." + name] = budget }
        for name in keys(C.Limits.CodingKeys.self) { table["deviceAPI.limits." + name] = budget }
        for name in ["pinPerPrefix", "pinPerMSISDNDaily"] { table["deviceAPI.protection." + name] = budget }
        return table
    }()

    /// `simulator` still reads these spellings from before `push` and `sms` had objects of their own; the
    /// example names them in its `_comment` instead of giving them (they cannot stand beside `push` and `sms`).
    static let oldSpellings: Set<String> = ["pushLatency", "smsLatency", "smsReportAfter"]

    static let exampleData: Data = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? Data(contentsOf: root.appendingPathComponent("Config/production.example.json"))) ?? Data()
    }()

    /// Every object's keys by path. A `_name` whose value is an object documents `name` as an alternative that
    /// cannot stand beside the one given (`providers.sms._kannel` beside `smpp`): it counts as `name`.
    static func objects(in value: Any, path: String, into table: inout [String: Set<String>]) {
        if let array = value as? [Any] {
            for element in array { objects(in: element, path: path + "[]", into: &table) }
            return
        }
        guard let object = value as? [String: Any] else { return }
        if table[path] == nil { table[path] = [] }
        for (key, member) in object {
            var name = key
            if key.hasPrefix("_") {
                guard member is [String: Any] else { continue }
                name = String(key.dropFirst())
            }
            table[path, default: []].insert(name)
            objects(in: member, path: path.isEmpty ? name : path + "." + name, into: &table)
        }
    }

    @Test("the example gives every key each decoder accepts, and no other")
    func everyKeyIsDocumented() throws {
        #expect(JSONSyntax.check(Self.exampleData) == nil)
        let root = try JSONSerialization.jsonObject(with: Self.exampleData)
        var found: [String: Set<String>] = [:]
        Self.objects(in: root, path: "", into: &found)
        for (path, accepted) in Self.keysByPath.sorted(by: { $0.key < $1.key }) {
            let given = found[path] ?? []
            #expect(Set(accepted).subtracting(given).isEmpty,
                    "\(path.isEmpty ? "(top level)" : path): accepted but not in the example: \(Set(accepted).subtracting(given).sorted())")
            #expect(given.subtracting(accepted).isEmpty,
                    "\(path.isEmpty ? "(top level)" : path): in the example but not accepted: \(given.subtracting(accepted).sorted())")
        }
        #expect(Set(found.keys).subtracting(Self.keysByPath.keys).isEmpty,
                "objects of the example this test does not know: \(Set(found.keys).subtracting(Self.keysByPath.keys).sorted())")
        let simulator = try #require((root as? [String: Any])?["simulator"] as? [String: Any])
        let comment = try #require(simulator["_comment"] as? String)
        for old in Self.oldSpellings { #expect(comment.contains(old), "simulator._comment should name \(old)") }
    }

    @Test("the example states the limits that are easy to get wrong")
    func limitsAreStated() throws {
        let text = String(decoding: Self.exampleData, as: UTF8.self)
        #expect(text.contains("at most 8 printable ASCII characters"), "SMPP's password limit")
        #expect(text.contains("1 to 15 characters"), "SMPP's system_id limit")
        #expect(text.contains("at most 12 characters"), "SMPP's system_type limit")
        #expect(text.contains("at least 32 bytes"), "the PIN key")
    }

    @Test("the PostgreSQL alternative the example documents loads in place of SQLite")
    func postgresAlternativeLoads() throws {
        var root = try #require(try JSONSerialization.jsonObject(with: Self.exampleData) as? [String: Any])
        root["database"] = try #require(root["_database"] as? [String: Any])
        root["_database"] = nil
        let data = try JSONSerialization.data(withJSONObject: root)
        let configuration = try Configuration.load(data: data, file: "example",
                                                   environment: Self.environment.merging(["TANDEM_DB_PASSWORD": "pw"]) { $1 })
        #expect(configuration.database.url == "postgres://tandem@db.example.internal:5432/tandem")
        #expect(configuration.database.password?.value == "pw")
        #expect(configuration.database.connectTimeout == .seconds(30))
    }

    @Test("the Kannel alternative the example documents loads in place of SMPP")
    func kannelAlternativeLoads() throws {
        var root = try #require(try JSONSerialization.jsonObject(with: Self.exampleData) as? [String: Any])
        var providers = try #require(root["providers"] as? [String: Any])
        var sms = try #require(providers["sms"] as? [String: Any])
        sms = ["kannel": try #require(sms["_kannel"])]
        providers["sms"] = sms
        root["providers"] = providers
        let data = try JSONSerialization.data(withJSONObject: root)
        let configuration = try Configuration.load(data: data, file: "example", environment: Self.environment)
        guard case .kannel(let kannel) = configuration.providers.sms else {
            Issue.record("expected Kannel, got \(configuration.providers.summary)")
            return
        }
        #expect(kannel.dlrToken?.value == "dlr")
        #expect(kannel.smsboxConfig != nil)
    }

    static let environment = [
        "TANDEM_METRICS_TOKEN": "t0k3n", "TANDEM_SMPP_PASSWORD": "pw", "TANDEM_VOICE_TOKEN": "vt",
        "TANDEM_PIN_KEY": String(repeating: "k", count: 32), "TANDEM_KANNEL_PASSWORD": "kp", "TANDEM_KANNEL_DLR_TOKEN": "dlr",
        "TANDEM_DASHBOARD_TOKEN": "dt",
    ]
}
