/// Where the server reads an app's APNs signing key (the `.p8` file Apple issues, PEM text) from.
///
/// A *reference* to the key, never the key itself: the database, the CLI and the admin API hold and show
/// only the path or the variable's name, so they may be printed; the key material is read by the APNs
/// provider when it signs.
/// Not guaranteed: that the file exists or the variable is set when the value is used; the CLI and the
/// admin API check the file when it is set, nothing checks the variable (it need only be set for the server).
public enum APNsKeySource: Sendable, Hashable {
    /// An absolute path to the `.p8` file on the server.
    case file(String)
    /// The name of an environment variable of the server process holding the key's PEM text.
    case environment(String)

    /// Throws when the path is not absolute or the variable name is not a portable one
    /// (`[A-Za-z_][A-Za-z0-9_]*`, at most 255 characters).
    public func validate() throws(PushCredentialsError) {
        switch self {
        case .file(let path):
            guard PushCredentialsError.isAbsolutePath(path) else { throw .keyFile(path) }
        case .environment(let name):
            guard Self.isEnvironmentVariableName(name) else { throw .keyEnvironmentVariable(name) }
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, 1 to 255 characters (POSIX portable names; no `=`, no spaces).
    public static func isEnvironmentVariableName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 255, !first.isASCIIDigit else { return false }
        return bytes.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "_") }
    }
}

extension UInt8 {
    var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    var isASCIIAlphanumeric: Bool {
        isASCIIDigit || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
