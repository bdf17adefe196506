/// An app's push credentials: how the providers authenticate to APNs and to FCM on its behalf. Either,
/// both or neither may be set; a platform without credentials cannot be pushed to for this app.
///
/// Stored as JSON in `apps.push_credentials` with fixed keys (NULL when neither is set):
///
///     {"apns":{"keyFile":"/etc/tandem/AuthKey_ABC123DEFG.p8","keyId":"ABC123DEFG","teamId":"DEF123GHIJ",
///              "topic":"com.acme.app","sandbox":false},
///      "fcm":{"serviceAccountFile":"/etc/tandem/acme-firebase.json"}}
///
/// (`"keyEnv":"ACME_APNS_KEY"` instead of `keyFile` when the key's PEM is in an environment variable.)
/// These are *references* to secrets — file paths and a variable name — never the key material, so they
/// may be shown by `tandem app show` and the admin API.
/// Not guaranteed: that a referenced file exists or is readable, or that the variable is set, at push time.
public struct AppPushCredentials: Sendable, Hashable {
    public var apns: APNsCredentials?
    public var fcm: FCMCredentials?

    public init(apns: APNsCredentials? = nil, fcm: FCMCredentials? = nil) {
        self.apns = apns
        self.fcm = fcm
    }

    /// True when neither platform has credentials (stored as NULL).
    public var isEmpty: Bool { apns == nil && fcm == nil }

    /// Throws the first problem of the APNs credentials, then of the FCM ones.
    public func validate() throws(PushCredentialsError) {
        try apns?.validate()
        try fcm?.validate()
    }
}

extension AppPushCredentials: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case apns, fcm
    }

    /// Absent or `null` members mean "not set"; unknown keys are refused.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(apns: try c.decodeIfPresent(APNsCredentials.self, forKey: .apns),
                  fcm: try c.decodeIfPresent(FCMCredentials.self, forKey: .fcm))
    }

    /// Writes only the platforms that are set.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(apns, forKey: .apns)
        try c.encodeIfPresent(fcm, forKey: .fcm)
    }
}
