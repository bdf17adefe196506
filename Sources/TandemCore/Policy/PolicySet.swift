import Foundation

/// The three policies, one per `AppMessageType`, as loaded at start-up.
public struct PolicySet: Sendable, Hashable {
    public let defaultPolicy: Policy
    public let otp: Policy
    public let critical: Policy

    public init(default defaultPolicy: Policy, otp: Policy, critical: Policy) {
        self.defaultPolicy = defaultPolicy
        self.otp = otp
        self.critical = critical
    }

    public subscript(type: AppMessageType) -> Policy {
        switch type {
        case .default: defaultPolicy
        case .otp: otp
        case .critical: critical
        }
    }

    /// The file each type is read from, e.g. `otp.json`.
    public static func fileName(for type: AppMessageType) -> String {
        type.rawValue.lowercased() + ".json"
    }

    /// Decodes `default.json`, `otp.json` and `critical.json` from `files` (file name → contents);
    /// `directory` only labels errors. Every type must be present, and each file must describe its own type.
    /// Other `.json` files are refused, so a misnamed policy cannot be silently ignored.
    public static func decode(files: [String: Data], directory: String) throws(ConfigurationError) -> PolicySet {
        let expected = Dictionary(uniqueKeysWithValues: AppMessageType.allCases.map { (fileName(for: $0), $0) })
        for name in files.keys.sorted() where expected[name] == nil {
            throw ConfigurationError(file: directory + "/" + name, key: "",
                problem: "unexpected policy file (expected \(expected.keys.sorted().joined(separator: ", ")))")
        }
        var byType: [AppMessageType: Policy] = [:]
        for (name, type) in expected.sorted(by: { $0.key < $1.key }) {
            let path = directory + "/" + name
            guard let data = files[name] else {
                throw ConfigurationError(file: path, key: "", problem: "missing: every appMessageType needs a policy")
            }
            let policy = try StrictJSON.decode(Policy.self, from: data, file: path)
            guard policy.messageType == type else {
                throw ConfigurationError(file: path, key: "appMessageType",
                    problem: "expected \"\(type.wireName)\" in \(name), got \"\(policy.messageType.wireName)\"")
            }
            byType[type] = policy
        }
        guard let defaultPolicy = byType[.default], let otp = byType[.otp], let critical = byType[.critical] else {
            throw ConfigurationError(file: directory, key: "", problem: "incomplete policy set")
        }
        return PolicySet(default: defaultPolicy, otp: otp, critical: critical)
    }

    /// The spec's semantics (the same as the shipped Policies/ files), for tests and tools that run without
    /// a Policies/ directory.
    public static let specDefaults = PolicySet(
        default: Policy(messageType: .default, pushTTL: .providerMaximum, pushPriority: .normal,
                         lifetime: .providerMaximum, fallback: .init(onPushFailure: true), manualFallback: .notAllowed),
        otp: Policy(messageType: .otp, pushTTL: .limited(.seconds(30)), pushPriority: .high,
                     lifetime: .limited(.seconds(30)), fallback: .init(onPushFailure: true), manualFallback: .terminatePush),
        critical: Policy(messageType: .critical, pushTTL: .limited(.seconds(30)), pushPriority: .high,
                          lifetime: .providerMaximum,
                          fallback: .init(onPushFailure: true, afterNoDeliveryAck: .seconds(30), afterNoRead: .seconds(30)),
                          manualFallback: .notAllowed))
}
