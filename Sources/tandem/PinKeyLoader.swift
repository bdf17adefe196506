import Foundation
import TandemCore
import TandemCrypto

/// The server key verification PINs are derived from (see `PinCodec`): the configured secret
/// (`deviceAPI.verification.pinKey`), or else a random key kept in `<database path>.pin-key` — created
/// on first start with mode 0600, read on every later one, so PINs issued before a restart still verify.
enum PinKeyLoader {
    static func load(_ configuration: Configuration) throws(CommandFailure) -> [UInt8] {
        if let secret = configuration.deviceAPI.verification.pinKey { return Array(secret.value.utf8) }
        let path = configuration.database.path + ".pin-key"
        if let existing = FileManager.default.contents(atPath: path) {
            let text = String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.utf8.count >= 64 else {
                throw CommandFailure(.configuration, "\(path) must hold a key of at least 32 bytes as hex; delete it to make a new one")
            }
            return Array(text.utf8)
        }
        let key = Digest.hex(SecureRandom.bytes(32))
        // On PostgreSQL no database file made the directory.
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let created = FileManager.default.createFile(atPath: path, contents: Data((key + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600])
        guard created else { throw CommandFailure(.failure, "cannot create the PIN key file \(path)") }
        return Array(key.utf8)
    }
}
