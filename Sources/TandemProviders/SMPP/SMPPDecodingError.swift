/// Why octets from the SMSC could not be read as a PDU. Any of these ends the connection: the stream
/// cannot be trusted to be in step any more (`generic_nack` is sent first where the header was readable).
enum SMPPDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `command_length` below the 16-octet header or above the client's limit.
    case invalidLength(UInt32)
    /// The body ended inside a field.
    case truncated(field: String)
    /// A C-octet string without its NUL within the field's maximum size.
    case unterminated(field: String)

    var description: String {
        switch self {
        case .invalidLength(let length): "invalid command_length \(length)"
        case .truncated(let field): "PDU ends inside \(field)"
        case .unterminated(let field): "\(field) is not NUL-terminated within its maximum size"
        }
    }
}
