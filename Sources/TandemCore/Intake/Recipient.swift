/// Whom a ``SendCommand`` is for, as a sender API names it.
public enum Recipient: Sendable, Hashable {
    /// A phone number: the hybrid route (push to the number's verified installs of the message's app, else
    /// SMS), as CM's `to` and SCG's phone-number addresses.
    case msisdn(MSISDN)
    /// One registration of the message's app, by its device id (a push only: a registration is not a number).
    case registration(DeviceID)
    /// A push token of an app, as SCG's `psh:apn@<sender>@<token>` names it: pushed to that token directly;
    /// the intake keeps it as a registration of the app (pushable by address, never verified for a number).
    case pushAddress(PushAddress)
    /// A named group of registrations of the message's app (myMSP's recipient groups).
    case group(String)
}

/// A push token of one app on one platform, addressed directly rather than through a phone number.
public struct PushAddress: Sendable, Hashable {
    public let platform: Platform
    /// How the sender named the app: its app key, or a sender id configured on the app.
    public let app: String
    public let token: PushToken

    public init(platform: Platform, app: String, token: PushToken) {
        self.platform = platform
        self.app = app
        self.token = token
    }
}
