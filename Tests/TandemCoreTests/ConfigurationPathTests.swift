import Foundation
import Testing
@testable import TandemCore

@Suite("Configuration paths")
struct ConfigurationPathTests {
    @Test("relative paths are joined to the directory, with . and .. folded", arguments: [
        ("Policies", "/srv/tandem/Config", "/srv/tandem/Config/Policies"),
        ("../Policies", "/srv/tandem/Config", "/srv/tandem/Policies"),
        ("./data/../data/t.sqlite", "/srv", "/srv/data/t.sqlite"),
        ("/var/lib/tandem/t.sqlite", "/srv/tandem/Config", "/var/lib/tandem/t.sqlite"),
        ("../../../x", "/a", "/x"),
        ("../x", "Config", "x"),
        ("../../x", "Config", "../x"),
    ])
    func resolution(path: String, directory: String, expected: String) {
        #expect(Configuration.resolve(path, against: directory) == expected)
    }

    @Test("every path-valued key resolves against the file's directory and is listed as written and resolved")
    func everyPathKey() throws {
        let json = #"""
        {"database": {"path": "../data/t.sqlite"}, "policies": "/etc/tandem/policies",
         "providers": {"push": {"apns": {"http": {"caFile": "certs/apns.pem"}}, "fcm": {"http": {"caFile": "fcm.pem"}}},
                       "sms": {"kannel": {"sendsmsURL": "http://k/s", "username": "u", "password": {"env": "P"},
                                          "dlrURL": "http://t/d", "smsboxConfig": "kannel.conf"}}}}
        """#
        let configuration = try Configuration.load(data: Data(json.utf8), file: "/srv/Config/c.json", directory: "/srv/Config",
                                                   environment: ["P": "pw"])
        #expect(configuration.database.path == "/srv/data/t.sqlite")
        #expect(configuration.policies == "/etc/tandem/policies")
        guard case .services(let apns, let fcm) = configuration.providers.push,
              case .kannel(let kannel) = configuration.providers.sms else {
            Issue.record("unexpected providers \(configuration.providers)")
            return
        }
        #expect(apns.http.caFile == "/srv/Config/certs/apns.pem")
        #expect(fcm.http.caFile == "/srv/Config/fcm.pem")
        #expect(kannel.smsboxConfig == "/srv/Config/kannel.conf")
        #expect(configuration.paths == [
            ConfiguredPath(key: "database.path", written: "../data/t.sqlite", resolved: "/srv/data/t.sqlite", expectation: .none),
            ConfiguredPath(key: "policies", written: "/etc/tandem/policies", resolved: "/etc/tandem/policies", expectation: .directory),
            ConfiguredPath(key: "providers.push.apns.http.caFile", written: "certs/apns.pem", resolved: "/srv/Config/certs/apns.pem",
                           expectation: .file),
            ConfiguredPath(key: "providers.push.fcm.http.caFile", written: "fcm.pem", resolved: "/srv/Config/fcm.pem", expectation: .file),
            ConfiguredPath(key: "providers.sms.kannel.smsboxConfig", written: "kannel.conf", resolved: "/srv/Config/kannel.conf",
                           expectation: .none),
        ])
    }

    @Test("defaults count from the file's directory too; TANDEM_DB stays as given (relative to the working directory)")
    func defaultsAndOverride() throws {
        let defaults = try Configuration.load(data: Data("{}".utf8), file: "/etc/tandem/c.json", directory: "/etc/tandem",
                                              environment: [:])
        #expect(defaults.database.path == "/etc/tandem/data/tandem.sqlite")
        #expect(defaults.policies == "/etc/tandem/Policies")
        let overridden = try Configuration.load(data: Data("{}".utf8), file: "/etc/tandem/c.json", directory: "/etc/tandem",
                                                environment: ["TANDEM_DB": "local.sqlite"])
        #expect(overridden.database.path == "local.sqlite")
        #expect(overridden.paths.map(\.key) == ["policies"])
    }
}
