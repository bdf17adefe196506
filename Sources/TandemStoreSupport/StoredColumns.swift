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
