/// Whom one delivery is for: a phone number (the hybrid route: push to its verified installs, SMS when
/// the policy falls back) or one registration addressed directly (push only: it has no number to fall
/// back to).
///
/// Stored as text in the delivery's row: the E.164 number, or `device:` and the registration's device id
/// (a text no number can be, so the inbox's index on numbers never matches a device delivery).
public enum DeliveryRecipient: Sendable, Hashable, CustomStringConvertible {
    case msisdn(MSISDN)
    case device(DeviceID)

    public var msisdn: MSISDN? {
        if case .msisdn(let msisdn) = self { msisdn } else { nil }
    }

    public var device: DeviceID? {
        if case .device(let device) = self { device } else { nil }
    }

    static let devicePrefix = "device:"

    public var storedText: String {
        switch self {
        case .msisdn(let msisdn): msisdn.e164
        case .device(let device): Self.devicePrefix + device.guid.text
        }
    }

    /// The recipient a ``storedText`` names; nil when it names none (a number not in E.164 form included).
    public init?(storedText text: String) {
        if text.hasPrefix(Self.devicePrefix) {
            guard let guid = GUID(String(text.dropFirst(Self.devicePrefix.count))) else { return nil }
            self = .device(DeviceID(guid))
        } else {
            guard let msisdn = MSISDN(text), msisdn.e164 == text else { return nil }
            self = .msisdn(msisdn)
        }
    }

    /// For logs: the number masked as the logger masks numbers elsewhere, or the device id.
    public var description: String {
        switch self {
        case .msisdn(let msisdn): msisdn.masked
        case .device(let device): Self.devicePrefix + device.guid.text
        }
    }
}
