import Foundation
import TandemCore

// How values are spelled in columns that both store backends keep the same way (package access).

extension AllowedChannels {
    /// `messages.allowed_channels`: NULL for all channels, else a JSON array of wire names, sorted.
    package var storedText: String? {
        switch self {
        case .all: nil
        // The sets there are, spelled out: this runs for every message.
        case .only(let channels) where channels == [.push]: #"["Push"]"#
        case .only(let channels) where channels == [.sms]: #"["SMS"]"#
        case .only(let channels) where channels.isEmpty: "[]"
        case .only(let channels):
            "[" + channels.map(\.wireName).sorted().map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
    }
}

extension AllowedChannels {
    /// Reads back ``storedText``: NULL is every channel; nil for text that is not a stored channel list.
    package init?(storedText: String?) {
        guard let storedText else { self = .all; return }
        guard storedText.hasPrefix("["), storedText.hasSuffix("]") else { return nil }
        var channels: Set<Channel> = []
        let list = storedText.dropFirst().dropLast()
        for name in list.split(separator: ",", omittingEmptySubsequences: false) where !list.isEmpty {
            guard name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\""),
                  let channel = Channel(rawValue: String(name.dropFirst().dropLast())) else { return nil }
            channels.insert(channel)
        }
        self = .only(channels)
    }
}

/// `messages.presentation`: NULL when the presentation is empty, else its JSON (`PushPresentation`'s `Codable` form).
package enum PresentationColumn {
    package static func text(_ presentation: SharedPresentation) throws(ColumnCodingError) -> String? {
        guard !presentation.isEmpty else { return nil }
        return try PresentationWriter.write(presentation.wrappedValue)
    }

    package static func presentation(from text: String?) throws(ColumnCodingError) -> PushPresentation {
        guard let text else { return PushPresentation() }
        do {
            return try JSONDecoder().decode(PushPresentation.self, from: Data(text.utf8))
        } catch {
            throw ColumnCodingError(message: "\(error)")
        }
    }
}

/// A stored value that could not be written or read back; each backend reports it in its own error type.
package struct ColumnCodingError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// `apps.push_credentials`: NULL when the app has none, else their JSON with sorted keys (equal credentials are equal
/// text).
package enum PushCredentialsColumn {
    /// Invalid credentials are refused before anything is written.
    package static func text(_ credentials: AppPushCredentials) throws(ColumnCodingError) -> String? {
        guard !credentials.isEmpty else { return nil }
        do {
            try credentials.validate()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(credentials), as: UTF8.self)
        } catch {
            throw ColumnCodingError(message: "\(error)")
        }
    }

    /// Reads back ``text(_:)``; NULL is no credentials. `app` names the row in the error.
    package static func credentials(from text: String?, app: AppKey,
                                    decoder: JSONDecoder) throws(ColumnCodingError) -> AppPushCredentials {
        guard let text else { return AppPushCredentials() }
        do {
            return try decoder.decode(AppPushCredentials.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw ColumnCodingError(message: ConfigurationError(file: "app \(app)", decodingError: error).description)
        } catch {
            throw ColumnCodingError(message: "app \(app): \(error)")
        }
    }
}

/// `apps.sms_protection` (``SMSProtection``) and `accounts.sms_countries` (``SMSCountryPolicy``): NULL for the
/// default, else the JSON with sorted keys.
package enum SMSSettingColumn {
    package static func text<T: Encodable>(_ value: T, isDefault: Bool) throws(ColumnCodingError) -> String? {
        guard !isDefault else { return nil }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw ColumnCodingError(message: "\(error)")
        }
    }

    /// Reads back ``text(_:isDefault:)``: `fallback` when NULL; a value that does not decode is an error (reading it
    /// as the default would silently lift a rule).
    package static func value<T: Decodable>(from text: String?, default fallback: T) throws(ColumnCodingError) -> T {
        guard let text else { return fallback }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw ColumnCodingError(message: "\(error)")
        }
    }
}

/// Lower-case hex of bytes, as `scg_tokens.token_sha256` holds a digest.
package enum StoredHex {
    package static func text(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    package static let digits = Array("0123456789abcdef".utf8)
}

/// `message_spools.recipients`: the spool's numbers (E.164) joined by commas, `total` of them.
package enum SpoolRecipientsColumn {
    package static func text(_ recipients: [MSISDN]) -> String {
        recipients.map(\.e164).joined(separator: ",")
    }

    /// The stored list's numbers `from..<from + limit` (or all from `from` with no limit), checking its length.
    /// `message` names the spool's message in the error.
    package static func recipients(_ list: String, total: Int, from: Int, limit: Int?,
                                   message: String) throws(ColumnCodingError) -> [MSISDN] {
        let fields = list.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count == total, from >= 0, from <= total else {
            throw ColumnCodingError(message: "message \(message): \(fields.count) numbers stored for a spool of \(total)")
        }
        let end = limit.map { min(total, from + $0) } ?? total
        var recipients: [MSISDN] = []
        recipients.reserveCapacity(end - from)
        for field in fields[from..<end] {
            guard let text = String(field), let msisdn = MSISDN(text) else {
                throw ColumnCodingError(message: "message \(message): a malformed number")
            }
            recipients.append(msisdn)
        }
        return recipients
    }
}
