import CLibPQ
import Glibc

/// Where a connection goes: a libpq connection string or URI, plus a password kept out of it (given to libpq
/// as its own parameter, which overrides one in the string), and the `application_name` the server's
/// `pg_stat_activity` shows.
public struct PGConnectionTarget: Sendable, Hashable {
    public let conninfo: String
    public let password: String?
    public let applicationName: String

    public init(_ conninfo: String, password: String? = nil, applicationName: String = "tandem") {
        self.conninfo = conninfo
        self.password = password
        self.applicationName = applicationName
    }

    /// What libpq's own parser (`PQconninfoParse`) finds wrong in `conninfo`, or nil: an unknown parameter, a
    /// malformed URI.
    public static func problem(in conninfo: String) -> String? {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            defer { if let message { PQfreemem(message) } }
            return message.map { PGConnection.trimmed($0) } ?? "out of memory"
        }
        PQconninfoFree(options)
        return nil
    }

    /// What a server at this target answers before a login (`PQpingParams`).
    public enum Readiness: Sendable, Hashable {
        /// It accepts connections.
        case ready
        /// It answers but refuses connections now (starting up, shutting down, in recovery).
        case refusing
        /// Nothing answers at the address (not started, or unreachable).
        case unreachable
        /// The parameters cannot even be tried (libpq cannot parse them).
        case unusable
    }

    /// Asks the server whether it accepts connections, without logging in.
    public func readiness() -> Readiness {
        let state = withParameters { keywords, values in PQpingParams(keywords, values, 1) }
        switch state {
        case PQPING_OK: return .ready
        case PQPING_REJECT: return .refusing
        case PQPING_NO_RESPONSE: return .unreachable
        default: return .unusable
        }
    }

    /// Calls `body` with libpq's keyword and value arrays (NULL-terminated): `dbname` (expanded as a
    /// connection string or URI), then the password and the application name, which override the string's.
    func withParameters<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        var pairs: [(String, String)] = [("dbname", conninfo), ("application_name", applicationName)]
        if let password { pairs.append(("password", password)) }
        let keys = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keyPointers: [UnsafePointer<CChar>?] = keys.map { UnsafePointer($0) } + [nil]
        let valuePointers: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) } + [nil]
        return keyPointers.withUnsafeBufferPointer { k in
            valuePointers.withUnsafeBufferPointer { v in body(k.baseAddress!, v.baseAddress!) }
        }
    }
}
