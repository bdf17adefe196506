/// A parsed HTTP/1.1 response.
struct RawHTTPResponse: Sendable {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    /// First header value with this name (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Whether the response carries a `Connection` header with the `close` token.
    var closesConnection: Bool {
        header("Connection")?.lowercased().split(separator: ",").contains { $0.trimmingSpaces == "close" } ?? false
    }
}
