import Foundation

/// A key file's contents with the identity of the version read (device, inode, size, modification
/// time), so a cache can notice that the file was replaced and read it again.
///
/// Not guaranteed: noticing a change that keeps inode, size and modification time (an in-place
/// rewrite within the file system's timestamp resolution).
struct KeyFileSnapshot: Sendable {
    struct Version: Sendable, Hashable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modifiedSeconds: Int64
        let modifiedNanoseconds: Int64
    }

    let version: Version
    let text: String

    /// The file's current version, or nil when it cannot be examined.
    static func version(of path: String) -> Version? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Version(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                       modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// Reads the file as UTF-8 text.
    static func read(_ path: String) throws(PushKeyError) -> KeyFileSnapshot {
        guard let version = version(of: path),
              let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8) else { throw .fileUnreadable(path: path) }
        return KeyFileSnapshot(version: version, text: text)
    }
}
