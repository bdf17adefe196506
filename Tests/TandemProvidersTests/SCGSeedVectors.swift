import TandemCore

/// The two worked examples of Syniverse's "Support for additional attributes to pass application data to
/// APN" (seed 001): the `options` each request sends and the APNs payload documented for it, verbatim
/// except that the page's non-breaking spaces are written as ASCII spaces (JSON allows only the latter).
enum SCGSeedVectors {
    static let body = "non localized body"

    static let example1Options = #"""
    {      "push:alert:loc-key": "localized-body-with-2-placeholders",      "push:alert:loc-arg:1": "value for first body placeholder",      "push:alert:loc-arg:2": "value for second body placeholder",      "push:badge": "4",      "push:alert:title": "non localized title",      "push:alert:title-loc-key": "localized-title-with-3-placeholders",      "push:alert:title-loc-arg:1": "value for first title placeholder",      "push:alert:title-loc-arg:2": "value for second title placeholder",      "push:alert:title-loc-arg:3": "value for third title placeholder",      "push:alert:subtitle": "not localized message subtitle",      "push:alert:subtitle-loc-key": "localized-subtitle-with-1-placeholder",      "push:alert:subtitle-loc-arg:1": "value for first subtitle placeholder",      "push:alert:launch-image":"launch-image-resource",      "push:alert:summary-arg":"summary arg value",      "push:alert:summary-arg-count": 25,      "push:sound":"non-critical-sound/cat.wav",      "push:soundx:name": "critical-sound/cat.wav",      "push:soundx:critical": true,      "push:soundx:volume": 0.80,      "push:thread-id": "thread id value",      "push:category": "category value",      "push:target-content-id": "target content id value",      "push:alert:tag": "tag value",      "push:alert:click_action": "click action value",      "push:alert:ticker": "ticker value",      "push:alert:sticky": true,      "push:alert:event_time": 1611014400000,      "push:alert:local_only": true,      "push:alert:notification_priority": "PRIORITY_MIN",      "push:appdata:o:address": "{\"zip\":\"223344\", \"street\": \"125 Avenue\", \"apt\":9, \"city\": \"New-York\", \"info\":{\"male\":true, \"ages\":[5,8,20]}}",      "push:appdata:s:appointmentDate": "01.01.2021",      "push:appdata:n:seats:1": "9.0",      "push:appdata:n:seats:2": "10",      "push:appdata:s:names:1": "Jack",      "push:appdata:s:names:2": "Bill"    }
    """#

    static let example1Payload = #"""
    {"address": {"zip": "223344","street": "125 Avenue","apt": 9.0,"city": "New-York","info": { "male": true, "ages": [5.0, 8.0, 20.0] }},"names": ["Jack", "Bill"],"aps": {"badge": 4,"alert": {"loc-args": ["value for first body placeholder","value for second body placeholder"],"launch-image": "launch-image-resource","subtitle-loc-args": ["value for first subtitle placeholder"],"loc-key": "localized-body-with-2-placeholders","summary-arg": "summary arg value","subtitle-loc-key": "localized-subtitle-with-1-placeholder","summary-arg-count": 25,"title-loc-key": "localized-title-with-3-placeholders","title-loc-args": ["value for first title placeholder","value for second title placeholder","value for third title placeholder"]},"sound": { "name": "critical-sound/cat.wav", "critical": 1, "volume": 0.8 },"category": "category value","target-content-id": "target content id value"},"scg-message-id": "mKS-pKFyGMjRYIvbtnYdgkVf95","appointmentDate": "01.01.2021","seats": [9.0, 10]}
    """#

    static let example2Options = #"""
    {      "push:badge": "4",      "push:alert:title": "non localized title",      "push:alert:subtitle": "not localized message subtitle",      "push:alert:launch-image":"launch-image-resource",      "push:alert:summary-arg":"summary arg value",      "push:alert:summary-arg-count": 25,      "push:sound":"non-critical-sound/cat.wav",      "push:thread-id": "thread id value",      "push:category": "category value",      "push:target-content-id": "target content id value",      "push:alert:tag": "tag value",      "push:alert:click_action": "click action value",      "push:alert:ticker": "ticker value",      "push:alert:sticky": true,      "push:alert:event_time": 1611014400000,      "push:alert:local_only": true,      "push:alert:notification_priority": "PRIORITY_MIN",      "push:appdata:o:address": "{\"zip\":\"223344\", \"street\": \"125 Avenue\", \"apt\":9, \"city\": \"New-York\", \"info\":{\"male\":true, \"ages\":[5,8,20]}}",      "push:appdata:s:appointmentDate": "01.01.2021",      "push:appdata:n:seats:1": "9.0",      "push:appdata:n:seats:2": "10",      "push:appdata:s:names:1": "Jack",      "push:appdata:s:names:2": "Bill"    }
    """#

    static let example2Payload = #"""
    {  "address": {    "zip": "223344",    "street": "125 Avenue",    "apt": 9.0,    "city": "New-York",    "info": { "male": true, "ages": [5.0, 8.0, 20.0] }  },  "names": ["Jack", "Bill"],  "aps": {    "badge": 4,    "alert": {      "launch-image": "launch-image-resource",      "subtitle": "not localized message subtitle",      "summary-arg": "summary arg value",      "body": "non localized body",      "title": "non localized title",      "summary-arg-count": 25    },    "sound": "non-critical-sound/cat.wav",    "category": "category value",    "target-content-id": "target content id value"  },  "scg-message-id": "mKS-giWKc1ujHbpnY5d7ABY0X5",  "appointmentDate": "01.01.2021",  "seats": [9.0, 10]}
    """#
}

/// TandemCore's JSON value (this test target has its own `JSONValue` for peers' logs).
typealias CoreJSON = TandemCore.JSONValue

extension CoreJSON {
    /// Parses test input, failing the test on malformed JSON.
    static func parsed(_ text: String) throws -> CoreJSON {
        switch JSONParser.parse(Array(text.utf8)) {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    /// This object with member `key` set to `value` (replaced in place, or appended).
    func setting(_ key: String, to value: CoreJSON) -> CoreJSON {
        guard case .object(var members) = self else { return self }
        if let position = members.firstIndex(where: { $0.key == key }) {
            members[position] = JSONMember(key: key, value: value)
        } else {
            members.append(JSONMember(key: key, value: value))
        }
        return .object(members)
    }

    /// Member `key` of an object.
    subscript(member key: String) -> CoreJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }
}

/// An SCG `options` object's text as the mapper's input.
func scgOptions(_ text: String) throws -> [String: SCGOptionValue] {
    guard case .object(let members) = try CoreJSON.parsed(text) else { throw SCGVectorError.notAnObject }
    var options: [String: SCGOptionValue] = [:]
    for member in members {
        guard let value = SCGOptionValue(json: member.value) else { throw SCGVectorError.notAnObject }
        options[member.key] = value
    }
    return options
}

enum SCGVectorError: Error { case notAnObject }
