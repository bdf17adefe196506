/// A request method Tandem can route on.
///
/// Only these seven methods are recognised. A request using any other method
/// (`TRACE`, `CONNECT`, `BREW`, …) never reaches a handler: the server answers
/// `501 Not Implemented`, which RFC 9110 §9.1 prescribes for methods the origin
/// server does not recognise or implement. Method names are case-sensitive
/// (`get` is not `GET`), as RFC 9110 §9.1 requires.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS
}
