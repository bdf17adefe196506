import Foundation

/// Decodes configuration-like JSON strictly: every problem becomes a `ConfigurationError` naming the file
/// and the key. Types decoded this way reject unknown keys through `rejectUnknownKeys`; keys that start
/// with `_` are comments and are always allowed. The text must first pass `JSONSyntax` (no trailing commas,
/// no comments), whose failures come out as `file:line:column: problem`.
public enum StrictJSON {
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws(ConfigurationError) -> T {
        if let failure = JSONSyntax.check(data) {
            throw ConfigurationError(file: file, syntax: failure)
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw ConfigurationError(file: file, decodingError: error)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: file, key: "", problem: "\(error)")
        }
    }
}

/// A coding key for any string, used to see every key an object has.
struct AnyCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

extension Decoder {
    /// Throws `unknown key` for the first key of this object that `Keys` does not list (comments, keys that
    /// start with `_`, are allowed). Call it first in `init(from:)`.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let known = Set(Keys.allCases.map(\.stringValue))
        for key in container.allKeys where !key.stringValue.hasPrefix("_") && !known.contains(key.stringValue) {
            let hint = Self.closest(to: key.stringValue, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key],
                                                    debugDescription: "unknown key" + hint))
        }
    }

    /// A known key that differs only in case, or by at most two edits, to point at typos.
    private static func closest(to key: String, in known: Set<String>) -> String? {
        let lowered = key.lowercased()
        if let sameLetters = known.first(where: { $0.lowercased() == lowered }) { return sameLetters }
        return known.map { ($0, editDistance(lowered, $0.lowercased())) }
            .filter { $0.1 <= 2 }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension KeyedDecodingContainer {
    /// A value that must lie in `range`; otherwise `must be between A and B`.
    func decode<T: Decodable & Comparable>(_ type: T.Type, forKey key: Key, in range: ClosedRange<T>) throws -> T {
        let value = try decode(type, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                debugDescription: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    /// A duration written as text (`"2ms"`, `"30s"`, `"10m"`), which must lie in `range`.
    func decodeDuration(forKey key: Key, in range: ClosedRange<Duration>) throws -> Duration {
        let text = try decode(String.self, forKey: key)
        guard let duration = DurationText.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                debugDescription: "expected a duration like \"500ms\", \"30s\", \"10m\", \"2h\" or \"7d\", got \"\(text)\"")
        }
        guard range.contains(duration) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                debugDescription: "must be between \(DurationText.format(range.lowerBound)) and \(DurationText.format(range.upperBound)), got \"\(text)\"")
        }
        return duration
    }

    /// One of an enum's raw values (`parse` may fold case); otherwise `expected "a" or "b", got "x"`.
    func decodeChoice<E: RawRepresentable & CaseIterable>(
        _ type: E.Type, forKey key: Key, parse: (String) -> E? = { E(rawValue: $0) }
    ) throws -> E where E.RawValue == String {
        let text = try decode(String.self, forKey: key)
        guard let value = parse(text) else {
            let names = E.allCases.map { "\"\($0.rawValue)\"" }
            let expected = names.count == 2 ? "\(names[0]) or \(names[1])" : "one of " + names.joined(separator: ", ")
            throw fail(key, "expected \(expected), got \"\(text)\"")
        }
        return value
    }

    /// Fails with `message` at `key`.
    func fail(_ key: Key, _ message: String) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: message)
    }
}
