import TandemCore

/// Tandem's own keys in every push (APNs beside `aps`, FCM first in `data`): the message's id, shown to
/// apps as `ID`, and the delivery's `UpdateID`, which the app's receipts name. Custom data never replaces them.
public enum PushIdentifiers {
    public static func members(messageID: GUID, updateID: DeliveryKey) -> [JSONMember] {
        [JSONMember(key: "messageId", value: .string(messageID.text)),
         JSONMember(key: "updateId", value: .string(String(updateID.rawValue)))]
    }
}
