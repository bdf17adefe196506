/// A raw request-target split into its path and query, with the path decoded
/// segment by segment (so an encoded `%2F` stays inside one segment for routing).
///
/// Origin-form (`/p?q`) is the expected shape. For absolute-form
/// (`http://host/p?q`) the scheme and authority are skipped; the authority is
/// NOT checked against anything. A fragment (`#…`, which clients should not
/// send) is not treated specially and ends up in the query or path.
struct RequestTarget {
    /// The percent-decoded path, e.g. `/a b/c`.
    let path: String
    /// The decoded path segments used for routing: `/a/b` → `["a", "b"]`, `/` → `[""]`.
    let segments: [String]
    /// The raw query after the first `?`, or empty.
    let rawQuery: Substring

    init(_ target: String) {
        var rest = target[...]
        if !rest.hasPrefix("/"), let scheme = rest.firstRange(of: "://") {
            let afterAuthority = rest[scheme.upperBound...]
            rest = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterAuthority[$0...] } ?? "/"
        }
        let rawPath: Substring
        if let question = rest.firstIndex(of: "?") {
            rawPath = rest[..<question]
            rawQuery = rest[rest.index(after: question)...]
        } else {
            rawPath = rest
            rawQuery = ""
        }
        let rawSegments = Self.split(rawPath)
        if rawPath.utf8.contains(UInt8(ascii: "%")) {
            path = PercentDecoding.decode(rawPath, plusIsSpace: false)
            segments = rawSegments.map { PercentDecoding.decode($0, plusIsSpace: false) }
        } else {
            path = String(rawPath)
            segments = rawSegments.map(String.init)
        }
    }

    /// Splits a path on `/`, dropping only the leading empty piece before the first `/`.
    static func split(_ path: Substring) -> [Substring] {
        let pieces = path.split(separator: "/", omittingEmptySubsequences: false)
        return pieces.first == "" ? Array(pieces.dropFirst()) : pieces
    }
}
