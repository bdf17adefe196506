import TandemCore
import TandemHTTP

/// The admin API's response documents.
///
/// Guaranteed: only ``createdApp(_:)`` reads `app.secret` (the other app documents never do), and account
/// documents show the product token masked (`1a2b3c4d-****`); the only other documents with a secret in
/// full are the ones ``AdminAppsEndpoint`` builds for account creation and secret rotation.
enum AdminJSON {
    /// A JSON response that caches nowhere (`Cache-Control: no-store`): admin answers may carry secrets.
    static func response(_ status: HTTPStatus, _ document: JSONValue) -> Response {
        var response = Response.json(status, document.compactText)
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { JSONMember(key: $0.key, value: $0.value) })
    }

    static func time(_ milliseconds: Int64) -> JSONValue {
        .string(ISO8601.format(Timestamp(milliseconds: milliseconds)))
    }

    /// `{"name","productToken":"1a2b3c4d-****","disabled","createdAt"}`.
    static func account(_ account: Account) -> JSONValue {
        object(["name": .string(account.name), "productToken": .string(account.productToken.description),
                "disabled": .bool(account.disabled), "smsCountries": smsCountries(account.smsCountries),
                "createdAt": time(account.createdAt)])
    }

    /// `{"mode","allow"|"deny"?,"pinLength"}`: the request shape of `PUT …/sms-protection` (`pinLength` null:
    /// the configured length).
    static func smsProtection(_ protection: SMSProtection) -> JSONValue {
        var members = [JSONMember(key: "mode", value: .string(protection.mode.rawValue))]
        if let (key, regions) = protection.countries.list {
            members.append(JSONMember(key: key, value: .array(regions.map { .string($0.text) })))
        }
        members.append(JSONMember(key: "pinLength", value: protection.pinLength.map { .number(String($0)) } ?? .null))
        return .object(members)
    }

    /// `{"mode","allow"|"deny"?}`.
    static func smsCountries(_ policy: SMSCountryPolicy) -> JSONValue {
        var members = [JSONMember(key: "mode", value: .string(policy.mode.rawValue))]
        if let (key, regions) = policy.countries.list {
            members.append(JSONMember(key: key, value: .array(regions.map { .string($0.text) })))
        }
        return .object(members)
    }

    /// `{"prefix","region","since","until","sent","verified"}`.
    static func block(_ block: PrefixBlock) -> JSONValue {
        object(["prefix": .string(block.prefix.text), "region": .string(block.region.text),
                "since": .string(ISO8601.format(block.since)), "until": .string(ISO8601.format(block.until)),
                "sent": .number(String(block.sent)), "verified": .number(String(block.verified))])
    }

    /// `{"appKey","name","accountName","defaultMessageType","apns","fcm","createdAt"}`; `apns`/`fcm` are null
    /// when not set.
    static func app(_ summary: AppSummary) -> JSONValue {
        .object(members(summary))
    }

    /// ``app(_:)`` with `"appSecret"` after `"appKey"`: the answer to creating the app, the one time it is shown.
    static func createdApp(_ summary: AppSummary) -> JSONValue {
        var members = members(summary)
        members.insert(JSONMember(key: "appSecret", value: .string(summary.app.secret.text)), at: 1)
        return .object(members)
    }

    /// ``app(_:)`` plus `"registrations":{"Unverified":n,…}` (every status).
    static func app(_ details: AppDetails) -> JSONValue {
        let counts = RegistrationStatus.allCases.map { status in
            JSONMember(key: status.wireName, value: .number(String(details.registrations[status] ?? 0)))
        }
        return .object(members(details.summary) + [JSONMember(key: "registrations", value: .object(counts))])
    }

    private static func members(_ summary: AppSummary) -> [JSONMember] {
        let app = summary.app
        return [
            JSONMember(key: "appKey", value: .string(app.key.text)),
            JSONMember(key: "name", value: .string(app.name)),
            JSONMember(key: "accountName", value: .string(summary.accountName)),
            JSONMember(key: "defaultMessageType", value: .string(app.defaultMessageType.wireName)),
            JSONMember(key: "senderId", value: app.senderID.map(JSONValue.string) ?? .null),
            JSONMember(key: "apns", value: summary.pushCredentials.apns.map(apns) ?? .null),
            JSONMember(key: "fcm", value: summary.pushCredentials.fcm.map(fcm) ?? .null),
            JSONMember(key: "smsProtection", value: smsProtection(app.smsProtection)),
            JSONMember(key: "createdAt", value: time(app.createdAt)),
        ]
    }

    /// The request shape of `PUT …/apns`: `{"keyFile"|"keyEnv","keyId","teamId","topic","sandbox"}`.
    static func apns(_ credentials: APNsCredentials) -> JSONValue {
        let source: JSONMember = switch credentials.keySource {
        case .file(let path): JSONMember(key: "keyFile", value: .string(path))
        case .environment(let name): JSONMember(key: "keyEnv", value: .string(name))
        }
        return .object([source, JSONMember(key: "keyId", value: .string(credentials.keyID)),
                        JSONMember(key: "teamId", value: .string(credentials.teamID)),
                        JSONMember(key: "topic", value: .string(credentials.topic)),
                        JSONMember(key: "sandbox", value: .bool(credentials.sandbox))])
    }

    /// `{"serviceAccountFile"}`.
    static func fcm(_ credentials: FCMCredentials) -> JSONValue {
        object(["serviceAccountFile": .string(credentials.serviceAccountPath)])
    }
}
