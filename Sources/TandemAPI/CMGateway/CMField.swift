import TandemCore

/// The `msg` fields the codec reads, by their JSON names; every other key is ignored, because real CM
/// clients send fields Tandem does not use. Names match in any ASCII casing (`FROM`, `appmessagetype`).
enum CMField: Int, CaseIterable, Sendable {
    case from, to, body, reference, customGrouping, customGrouping2, customGrouping3
    case minimumNumberOfMessageParts, maximumNumberOfMessageParts, validity, dcs, allowedChannels
    case appKey, appMessageType, richContent, fallbackFor, options

    /// The name as CM's JSON documentation spells it, used in error details.
    var wireName: String {
        switch self {
        case .from: "from"
        case .to: "to"
        case .body: "body"
        case .reference: "reference"
        case .customGrouping: "customGrouping"
        case .customGrouping2: "customGrouping2"
        case .customGrouping3: "customGrouping3"
        case .minimumNumberOfMessageParts: "minimumNumberOfMessageParts"
        case .maximumNumberOfMessageParts: "maximumNumberOfMessageParts"
        case .validity: "validity"
        case .dcs: "dcs"
        case .allowedChannels: "allowedChannels"
        case .appKey: "appKey"
        case .appMessageType: "appMessageType"
        case .richContent: "richContent"
        case .fallbackFor: "fallbackFor"
        case .options: "options"
        }
    }

    /// Nil for keys the codec does not use.
    init?(key: String) {
        guard let field = Self.allCases.first(where: { ASCIICase.equal($0.wireName, key) }) else { return nil }
        self = field
    }
}

/// The known fields of one `msg`, whatever form it came in, before validation.
///
/// `null` and text that is empty or only spaces count as absent (XML and query clients send empty
/// elements and parameters for fields they do not use). A field given twice (in any casing) is remembered
/// in `duplicate`, which the decoder refuses with 305; XML and query front ends merge the fields that may
/// repeat (`to`, `allowedChannels`) into one array first.
struct CMFieldValues {
    private var slots = [JSONValue?](repeating: nil, count: CMField.allCases.count)
    private(set) var duplicate: CMField?

    init(_ members: [JSONMember]) {
        for member in members {
            guard let field = CMField(key: member.key) else { continue }
            switch member.value {
            case .null: continue
            case .string(let text) where text.trimmingASCIISpaces().isEmpty: continue
            default: break
            }
            if slots[field.rawValue] != nil {
                duplicate = duplicate ?? field
            } else {
                slots[field.rawValue] = member.value
            }
        }
    }

    subscript(field: CMField) -> JSONValue? { slots[field.rawValue] }
}
