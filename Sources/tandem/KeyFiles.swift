import Foundation

/// Paths of push-credential files (APNs `.p8` keys, FCM service-account JSON), as the CLI and the admin API
/// check them. Nothing here opens or reads a file: their contents are private keys.
enum KeyFiles {
    /// `path` made absolute against the current directory, with `.` and `..` resolved (symbolic links kept,
    /// so a path through a link keeps following the link).
    static func absolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }

    /// True when `path` names a regular file (following symbolic links). Not checked: that this process,
    /// or the server's user, may read it.
    static func isRegularFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
