/// One header field. Request header names are sent as given (curl lower-cases them for
/// HTTP/2); response header names are lower-cased by the client.
public struct HTTPClientHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Why this field cannot be sent, or nil: names must be RFC 9110 tokens, values must not
    /// contain CR, LF or NUL (which would let a value inject further header lines).
    var requestValidationProblem: String? {
        if name.isEmpty || !name.utf8.allSatisfy(HTTPToken.isTokenByte) {
            return "header name \(String(reflecting: name)) is not a token"
        }
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            return "value of header \(name) contains CR, LF or NUL"
        }
        return nil
    }
}

extension Collection<HTTPClientHeader> {
    /// The first value of the field named `name`, compared ASCII case-insensitively.
    func firstValue(named name: String) -> String? {
        first { HTTPToken.equalsIgnoringASCIICase($0.name, name) }?.value
    }

    /// Every value of the field named `name`, in order received.
    func allValues(named name: String) -> [String] {
        filter { HTTPToken.equalsIgnoringASCIICase($0.name, name) }.map(\.value)
    }
}

/// RFC 9110 token rules, and ASCII case folding (header names are ASCII).
enum HTTPToken {
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }
}
