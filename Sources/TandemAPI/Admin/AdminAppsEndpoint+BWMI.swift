import TandemCore
import TandemHTTP

/// The admin routes of an app's TIBCO BWMI settings (``BWMIAppSettings``):
/// - `GET /admin/apps/{appKey}/bwmi` → `{"appKey","basePath","trustPhones","staticKeyRequired"}`;
/// - `PUT /admin/apps/{appKey}/bwmi` `{"trustPhones": bool, "staticKey": string|null}` replaces the whole
///   setting (a key left out is its default: not trusted, no key) and answers as `GET`.
/// The static key is never shown back.
extension AdminAppsEndpoint {
    public func registerBWMI(_ bwmi: any BWMIRegistry, in router: inout HTTPRouter) {
        router.add(.GET, "/admin/apps/{appKey}/bwmi", asyncRoute { request throws(AdminFailure) in
            let key = try Self.appKey(request)
            _ = try await self.details(key)
            return Self.bwmiDocument(key, try await self.call("read the BWMI settings", { try await bwmi.bwmiSettings(app: key) }))
        })
        router.add(.PUT, "/admin/apps/{appKey}/bwmi", asyncRoute { request throws(AdminFailure) in
            let key = try Self.appKey(request)
            let body = try AdminRequestBody(request.body, keys: ["trustPhones", "staticKey"])
            let settings = BWMIAppSettings(trustPhones: try body.bool("trustPhones") ?? false, staticKey: try body.string("staticKey"))
            if let staticKey = settings.staticKey,
               !(16...200).contains(staticKey.utf8.count) || !staticKey.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
                throw .badRequest("\"staticKey\" must be 16 to 200 printable ASCII characters without spaces")
            }
            guard try await self.call("set the BWMI settings", { try await bwmi.setBWMISettings(app: key, settings) }) else {
                throw Self.unknownApp(key)
            }
            self.logger.info("app BWMI settings set", ["appKey": .string(key.text), "trustPhones": .bool(settings.trustPhones),
                                                       "staticKey": .bool(settings.staticKey != nil)])
            return Self.bwmiDocument(key, settings)
        })
    }

    private static func bwmiDocument(_ key: AppKey, _ settings: BWMIAppSettings) -> Response {
        AdminJSON.response(.ok, AdminJSON.object([
            "appKey": .string(key.text), "basePath": .string("/bwmi/\(key.text)"), "trustPhones": .bool(settings.trustPhones),
            "staticKeyRequired": .bool(settings.staticKey != nil),
        ]))
    }
}
