import Foundation
import TandemCore

/// One row of a ``PGResult`` as text, read by column position with the checks SQLite's typed rows make: a
/// value that is NULL where none may be, or not of its column's type, fails the read (``PGError/client(_:)``
/// naming `context`) rather than reading as a default.
struct PGRow {
    let values: [String?]
    /// What the row is (`registration 3f…`), for the error.
    let context: String

    init(_ values: [String?], _ context: String) {
        self.values = values
        self.context = context
    }

    func malformed(_ index: Int) -> PGError {
        .client("\(context): column \(index) has a malformed stored value")
    }

    func optional(_ index: Int) -> String? { index < values.count ? values[index] : nil }

    func text(_ index: Int) throws(PGError) -> String {
        guard let value = optional(index) else { throw malformed(index) }
        return value
    }

    func int64(_ index: Int) throws(PGError) -> Int64 {
        guard let value = optional(index).flatMap({ Int64($0) }) else { throw malformed(index) }
        return value
    }

    func optionalInt64(_ index: Int) throws(PGError) -> Int64? {
        guard let text = optional(index) else { return nil }
        guard let value = Int64(text) else { throw malformed(index) }
        return value
    }

    /// PostgreSQL's text form of a boolean: `t` or `f`.
    func bool(_ index: Int) throws(PGError) -> Bool {
        guard let value = try optionalBool(index) else { throw malformed(index) }
        return value
    }

    func optionalBool(_ index: Int) throws(PGError) -> Bool? {
        switch optional(index) {
        case nil: nil
        case "t": true
        case "f": false
        default: throw malformed(index)
        }
    }

    /// A `bytea` in PostgreSQL's hex output (`\x0a1b…`).
    func bytes(_ index: Int) throws(PGError) -> [UInt8] {
        let text = try self.text(index)
        guard text.hasPrefix("\\x") else { throw malformed(index) }
        let digits = Array(text.utf8.dropFirst(2))
        guard digits.count % 2 == 0 else { throw malformed(index) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var offset = 0
        while offset < digits.count {
            guard let high = nibble(digits[offset]), let low = nibble(digits[offset + 1]) else { throw malformed(index) }
            bytes.append(high << 4 | low)
            offset += 2
        }
        return bytes
    }
}

extension PGResult {
    /// The rows, each with `context` for its errors.
    func rows(_ context: String) -> [PGRow] { rows.map { PGRow($0, context) } }
}

/// Text forms of values as parameters.
extension Int64 {
    var pgText: String { String(self) }
}

extension Int {
    var pgText: String { String(self) }
}

extension Timestamp {
    var pgText: String { String(milliseconds) }
}

extension Optional where Wrapped == Bool {
    var pgText: String? { map { $0 ? "t" : "f" } }
}
