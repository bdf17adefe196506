/// Why a query was refused. The handler answers HTTP 400 with ``description`` as the message, so every
/// message names the option and, where there is one, the offending text and its position.
///
/// Positions are 0-based offsets, in Unicode scalars, into the option's (percent-decoded) value.
public enum ODataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `$`-option this subset does not support: `unsupported query option $expand`.
    case unsupportedOption(String)
    /// The same option given twice: `duplicate query option $top`.
    case duplicateOption(ODataOption)
    /// A value that does not parse or does not type-check:
    /// `$filter: unsupported function 'substringof' at position 0`. A hint follows after `; `:
    /// `$select: unknown field 'id' at position 0; did you mean 'ID'?`.
    case malformed(ODataOption, String, position: Int?, hint: String? = nil)

    public var description: String {
        switch self {
        case .unsupportedOption(let name):
            if let option = ODataOption.allCases.first(where: { $0.rawValue == name.lowercased() }) {
                return "unsupported query option \(name); option names are case-sensitive: did you mean \(option.rawValue)?"
            }
            return "unsupported query option \(name)"
        case .duplicateOption(let option):
            return "duplicate query option \(option.rawValue)"
        case .malformed(let option, let detail, let position, let hint):
            var text = "\(option.rawValue): \(detail)"
            if let position { text += " at position \(position)" }
            if let hint { text += "; \(hint)" }
            return text
        }
    }

    /// The text for the HTTP 400 body; the same as ``description``.
    public var message: String { description }
}
