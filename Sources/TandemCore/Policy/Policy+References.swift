import Foundation

/// Finds a policy by the number it was stored under, for snapshots that name their policy by number instead of
/// spelling it out (Tandem's store keeps each policy once, in its `policies` table).
public protocol PolicyResolving: Sendable {
    /// The policy stored under `number`, or nil when this resolver does not know the number.
    func policy(numbered number: Int64) -> Policy?
}

/// A policy number no resolver knew, or a number where no resolver was given.
public struct UnknownPolicyNumber: Error, CustomStringConvertible {
    public let number: Int64

    public var description: String { "no policy is stored under number \(number)" }
}

extension CodingUserInfoKey {
    /// The ``PolicyResolving`` a decoder resolves policy numbers with (`JSONDecoder.userInfo`).
    public static let policyResolver = CodingUserInfoKey(rawValue: "tandem.policyResolver")!
}

extension Policy {
    /// The policy a decoder holds as a number, resolved through the decoder's ``CodingUserInfoKey/policyResolver``;
    /// nil when the value there is not a number (a policy spelled out).
    /// - Throws: ``UnknownPolicyNumber`` for a number the resolver does not know (or without a resolver).
    static func referenced(by decoder: any Decoder) throws -> Policy? {
        guard let single = try? decoder.singleValueContainer(), let number = try? single.decode(Int64.self) else {
            return nil
        }
        guard let resolver = decoder.userInfo[.policyResolver] as? any PolicyResolving,
              let policy = resolver.policy(numbered: number) else {
            throw UnknownPolicyNumber(number: number)
        }
        return policy
    }
}
