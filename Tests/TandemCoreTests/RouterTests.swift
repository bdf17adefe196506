import Testing
@testable import TandemCore

/// The router over the whole matrix the issue names:
/// allowedChannels × message type × registrations × app key.
@Suite("Router")
struct RouterTests {
    enum Channels: String, CaseIterable, Sendable { case absent, push, sms, pushAndSMS, unknownOnly }
    enum TypeChoice: String, CaseIterable, Sendable { case defaultType, otp, critical, absentUsesAppDefault }
    enum Installs: String, CaseIterable, Sendable {
        case none, unverified, waitingForPin, verified, verifiedNotificationsDisabled, verifiedTokenDead, twoVerified
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let channels: Channels
        let type: TypeChoice
        let installs: Installs
        let appKeyPresent: Bool
        var testDescription: String { "\(channels.rawValue)/\(type.rawValue)/\(installs.rawValue)/appKey:\(appKeyPresent)" }
    }

    static let matrix: [Case] = Channels.allCases.flatMap { channels in
        TypeChoice.allCases.flatMap { type in
            Installs.allCases.flatMap { installs in
                [true, false].map { Case(channels: channels, type: type, installs: installs, appKeyPresent: $0) }
            }
        }
    }

    static let policies = PolicySet.specDefaults
    static let app = App(key: AppKey(GUID("11111111-1111-4111-8111-111111111111")!), secret: AppSecret("s")!, name: "App",
                         account: ProductToken(GUID("22222222-2222-4222-8222-222222222222")!),
                         defaultMessageType: .otp, createdAt: 0)
    static let otherApp = AppKey(GUID("33333333-3333-4333-8333-333333333333")!)
    static let msisdn = MSISDN("+31612345678")!
    static let device1 = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000001")!)
    static let device2 = DeviceID(GUID("aaaaaaaa-0000-4000-8000-000000000002")!)
    static let token1 = PushToken("token-one")!
    static let token2 = PushToken("token-two")!

    static func registration(_ device: DeviceID, _ token: PushToken?, _ status: RegistrationStatus,
                             notifications: Bool = true, app: AppKey = Self.app.key) -> Registration {
        Registration(deviceID: device, app: app, msisdn: msisdn, platform: .android, pushToken: token,
                     status: status, notificationsEnabled: notifications)
    }

    static func registrations(_ installs: Installs) -> [Registration] {
        // Every case also has a verified install of another app on the same number: it must never be pushed.
        let foreign = registration(DeviceID(GUID("bbbbbbbb-0000-4000-8000-000000000009")!), PushToken("foreign")!,
                                   .pinVerified, app: otherApp)
        let own: [Registration] = switch installs {
        case .none: []
        case .unverified: [registration(device1, token1, .unverified)]
        case .waitingForPin: [registration(device1, token1, .waitingForPin)]
        case .verified: [registration(device1, token1, .pinVerified)]
        case .verifiedNotificationsDisabled: [registration(device1, token1, .pinVerified, notifications: false)]
        case .verifiedTokenDead: [registration(device1, token1, .invalid)]
        case .twoVerified: [registration(device1, token1, .pinVerified), registration(device2, token2, .pinVerified)]
        }
        return own + [foreign]
    }

    /// The expected decision, stated as the spec's rules in table form.
    static func expected(_ c: Case) -> RoutingDecision {
        if c.channels == .unknownOnly { return .reject(.noSupportedChannel) }
        let type: AppMessageType = switch c.type {
        case .defaultType: .default
        case .otp: .otp
        case .critical: .critical
        case .absentUsesAppDefault: c.appKeyPresent ? .otp : .default   // the test app's default type is OTP
        }
        let policy = policies[type]
        let pushAllowed = [.absent, .push, .pushAndSMS].contains(c.channels)
        let smsAllowed = [.absent, .sms, .pushAndSMS].contains(c.channels)
        if !pushAllowed { return .sms(SMSRoute(reason: .pushNotAllowed, policy: policy)) }
        if !c.appKeyPresent { return smsAllowed ? .sms(SMSRoute(reason: .noAppKey, policy: policy)) : .reject(.noAppKey) }
        let targets: [PushTarget] = switch c.installs {
        case .verified: [PushTarget(deviceID: device1, platform: .android, token: token1)]
        case .twoVerified: [PushTarget(deviceID: device1, platform: .android, token: token1),
                            PushTarget(deviceID: device2, platform: .android, token: token2)]
        case .none, .unverified, .waitingForPin, .verifiedNotificationsDisabled, .verifiedTokenDead: []
        }
        if !targets.isEmpty { return .push(PushPlan(targets: targets, policy: policy, smsAllowed: smsAllowed)) }
        if !smsAllowed { return .reject(.noPushableDevice) }
        return .sms(SMSRoute(reason: c.installs == .verifiedNotificationsDisabled ? .notificationsDisabled : .noPushableDevice,
                             policy: policy))
    }

    static func request(_ c: Case) -> RoutingRequest {
        let allowed: AllowedChannels = switch c.channels {
        case .absent: .all
        case .push: .only([.push])
        case .sms: .only([.sms])
        case .pushAndSMS: .only([.push, .sms])
        case .unknownOnly: .only([])
        }
        let type: AppMessageType? = switch c.type {
        case .defaultType: .default
        case .otp: .otp
        case .critical: .critical
        case .absentUsesAppDefault: nil
        }
        return RoutingRequest(allowedChannels: allowed, appKey: c.appKeyPresent ? app.key : nil, messageType: type)
    }

    @Test("every combination routes as the spec says", arguments: matrix)
    func matrixCase(_ c: Case) {
        let decision = Router.route(Self.request(c), app: c.appKeyPresent ? Self.app : nil,
                                    registrations: Self.registrations(c.installs), policies: Self.policies)
        #expect(decision == Self.expected(c))
    }

    @Test("the matrix covers 5 × 4 × 7 × 2 combinations")
    func matrixSize() {
        #expect(Self.matrix.count == 280)
    }

    @Test("Push only never yields SMS, SMS only never pushes", arguments: matrix)
    func channelRestrictionsHold(_ c: Case) {
        let decision = Router.route(Self.request(c), app: c.appKeyPresent ? Self.app : nil,
                                    registrations: Self.registrations(c.installs), policies: Self.policies)
        switch (c.channels, decision) {
        case (.push, .sms): Issue.record("Push-only message routed to SMS")
        case (.sms, .push): Issue.record("SMS-only message pushed")
        case (.push, .push), (.push, .reject), (.sms, .sms), (.sms, .reject),
             (.absent, _), (.pushAndSMS, _), (.unknownOnly, _): break
        }
    }

    @Test("an app key that names no app is rejected")
    func unknownApp() {
        let decision = Router.route(RoutingRequest(appKey: Self.otherApp), app: nil,
                                    registrations: Self.registrations(.verified), policies: Self.policies)
        #expect(decision == .reject(.unknownApp))
    }

    @Test("a policy that does not fall back on push failure rejects instead of sending an SMS")
    func noFallbackPolicy() {
        var otp = PolicySet.specDefaults.otp
        otp.fallback.onPushFailure = false
        let policies = PolicySet(default: PolicySet.specDefaults.defaultPolicy, otp: otp, critical: PolicySet.specDefaults.critical)
        let decision = Router.route(RoutingRequest(appKey: Self.app.key, messageType: .otp), app: Self.app,
                                    registrations: [], policies: policies)
        #expect(decision == RoutingDecision.reject(.noFallback))
    }
}
