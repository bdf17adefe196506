import TandemHTTP

/// Reads a Kannel DLR callback's query (`ref`, `type`, `reply`, `token`; `time` and `to` are ignored) into a
/// ``KannelDLR``. Pure: no I/O, no clock.
///
/// The token, when one is configured, is checked first and in constant time; a missing or different one is
/// `.wrongToken` whatever else the query holds. `ref` must be 1–64 characters of `A–Z a–z 0–9 - . _ ~`;
/// `type` a decimal number with at least one of Kannel's bits (1, 2, 4, 8, 16). Not checked: that the
/// reference was ever issued (the engine matches it).
enum KannelDLRCodec {
    static func decode(_ query: QueryParameters, expectedToken: String?) -> Result<KannelDLR, KannelDLRError> {
        if let expectedToken {
            let presented = query["token"] ?? ""
            guard ConstantTime.equals(Array(presented.utf8), Array(expectedToken.utf8)) else { return .failure(.wrongToken) }
        }
        guard let reference = query["ref"], !reference.isEmpty else { return .failure(.missingReference) }
        guard reference.utf8.count <= 64, reference.utf8.allSatisfy(isReferenceByte) else {
            return .failure(.invalidReference)
        }
        guard let typeText = query["type"], !typeText.isEmpty else { return .failure(.missingType) }
        guard typeText.utf8.count <= 6, typeText.utf8.allSatisfy({ (48...57).contains($0) }), let type = Int(typeText) else {
            return .failure(.invalidType(String(typeText.prefix(20))))
        }
        let reply = query["reply"].flatMap { $0.isEmpty ? nil : $0 }
        let dlr = KannelDLR(reference: reference, type: type, reply: reply)
        guard dlr.meaning != nil else { return .failure(.unknownType(type)) }
        return .success(dlr)
    }

    private static func isReferenceByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

/// Why a Kannel DLR callback was refused; `description` is the answer's text.
public enum KannelDLRError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The shared secret is configured and the callback's `token` is missing or different (403).
    case wrongToken
    case missingReference
    case invalidReference
    case missingType
    case invalidType(String)
    /// A number with none of Kannel's DLR bits (1, 2, 4, 8, 16).
    case unknownType(Int)

    public var description: String {
        switch self {
        case .wrongToken: "missing or wrong token"
        case .missingReference: "missing ref: the dlr-url Tandem gives Kannel carries ref=<reference>"
        case .invalidReference: "invalid ref: expected 1 to 64 characters of A-Z a-z 0-9 - . _ ~"
        case .missingType: "missing type: the dlr-url must carry type=%d"
        case .invalidType(let text): "invalid type \"\(text)\": expected Kannel's DLR type (%d), a number"
        case .unknownType(let type): "unknown DLR type \(type): expected 1, 2, 4, 8 or 16"
        }
    }
}
