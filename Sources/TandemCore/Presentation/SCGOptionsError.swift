/// Why an SCG `options` map cannot be mapped to a ``PushPresentation``; each case names the option key.
public enum SCGOptionsError: Error, Sendable, Hashable {
    /// A `push:` key the mapping does not know (also a malformed index or an empty appdata name).
    case unknownKey(String)
    /// The value is not what the key takes.
    case invalidValue(key: String, expected: Expected)
    /// A `push:appdata:o:` value that is not a JSON object; `problem` says why.
    case notAJSONObject(key: String, problem: String)
    /// `push:appdata:n:<name>:<i>` and `push:appdata:s:<name>:<j>` together: arrays hold one type.
    case mixedArray(key: String)
    /// The same appdata name used twice (as two types, or as a value and as an array); `key` is one of them.
    case conflictingAppData(key: String)
    /// An appdata name that the payload itself uses (`aps`).
    case reservedAppData(key: String)

    /// What an option's value must be.
    public enum Expected: String, Sendable, Hashable {
        case nonNegativeInteger = "a whole number, 0 or more"
        case number = "a number"
        case volume = "a number from 0.0 to 1.0"
        case boolean = "true or false"
        case epochMilliseconds = "epoch milliseconds"
        case notificationPriority = "an FCM notification priority (PRIORITY_MIN … PRIORITY_MAX)"
    }

    /// The option key at fault.
    public var key: String {
        switch self {
        case .unknownKey(let key), .invalidValue(let key, _), .notAJSONObject(let key, _), .mixedArray(let key),
             .conflictingAppData(let key), .reservedAppData(let key):
            key
        }
    }
}
