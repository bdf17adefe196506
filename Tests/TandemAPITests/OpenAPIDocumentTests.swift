import Foundation
import Testing
import TandemHTTP
@testable import TandemAPI

@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// `docs/openapi.json` of this checkout.
    private static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json")

    @Test("the embedded document is docs/openapi.json byte for byte (else run scripts/embed-openapi.py)")
    func embeddedCopyMatchesTheFile() throws {
        let onDisk = try [UInt8](Data(contentsOf: Self.file))
        #expect(OpenAPIDocument.bytes.count == onDisk.count)
        #expect(OpenAPIDocument.bytes == onDisk, "Sources/TandemAPI/OpenAPI/OpenAPIDocument+Embedded.swift is stale: run scripts/embed-openapi.py")
    }

    @Test("GET /openapi.json answers 200 application/json with the document, an OpenAPI 3.1 JSON object")
    func served() throws {
        var router = HTTPRouter()
        OpenAPIDocument().register(in: &router)
        let request = Request(method: .GET, target: "/openapi.json")
        guard case .matched(_, let handler, _) = router.match(.GET, path: request.path), case .sync(let body) = handler else {
            Issue.record("GET /openapi.json is not routed to a synchronous handler")
            return
        }
        let response = body(request)
        #expect(response.status == .ok)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == OpenAPIDocument.bytes)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? NSDictionary)
        #expect(document["openapi"] as? String == "3.1.0")
        #expect((document["paths"] as? NSDictionary)?["/openapi.json"] != nil)
    }
}
