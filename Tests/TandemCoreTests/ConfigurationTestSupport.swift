import Foundation
@testable import TandemCore

/// `json` loaded as `Config/test.json` with `environment` (the configuration suites' common step).
func loadTestConfiguration(_ json: String, environment: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
    try Configuration.load(data: Data(json.utf8), file: "Config/test.json", environment: environment)
}

/// The one-line problem loading `json` reports (`Config/test.json: key: problem`), or nil when it loads.
func testConfigurationProblem(_ json: String, environment: [String: String] = [:]) -> String? {
    do {
        _ = try loadTestConfiguration(json, environment: environment)
        return nil
    } catch {
        return error.description
    }
}
