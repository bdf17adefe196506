import TandemHTTP

/// `GET /openapi.json`: the OpenAPI 3.1 document of every HTTP endpoint, `docs/openapi.json` as it was when
/// the binary was built (embedded by `scripts/embed-openapi.py`; a unit test fails while the embedded copy and
/// the file differ by a byte).
///
/// Guaranteed: the same bytes on every request, public like `/healthz` (the document holds no secret, only the
/// names of the headers and settings that carry them). Not guaranteed: that the routes of *this* server match
/// it in every detail the configuration changes — the Kannel callback is served at `dlrURL`'s path, which the
/// document shows as its default `/kannel/dlr`, and only with the Kannel provider.
public struct OpenAPIDocument: Sendable {
    /// The document's bytes.
    public static var bytes: [UInt8] { Array(embedded.utf8) }

    public init() {}

    public func register(in router: inout HTTPRouter) {
        let body = Self.bytes
        router.add(.GET, "/openapi.json", .sync { _ in Response.json(.ok, body) })
    }
}
