import Foundation

// Reading a child process's pipe with `read(2)`, retrying on `EINTR`: `FileHandle.availableData` and
// `readDataToEndOfFile()` trap on any error, and a signal (SIGCHLD from another test's child) interrupting
// a blocked read killed the whole test process now and then.

/// The first line a child process writes to `handle` (a pipe), without the newline; what came before EOF if
/// there is no newline.
public func readFirstLine(from handle: FileHandle) -> String {
    var bytes: [UInt8] = []
    readRetrying(handle) { chunk in
        bytes += chunk
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return true }
        bytes = Array(bytes[..<newline])
        return false
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// ``readFirstLine(from:)`` on a thread of its own: a peer takes up to seconds to print its port, and a test
/// blocking a cooperative thread that long starves every other test's server and handlers of the pool's
/// few threads (one of them timed out waiting for a thread that way).
public func firstLine(from handle: FileHandle) async -> String {
    await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
        let reader = Thread { continuation.resume(returning: readFirstLine(from: handle)) }
        reader.name = "peer-port"
        reader.start()
    }
}

/// Everything a child process writes to `handle` (a pipe) until it closes it.
public func readToEnd(from handle: FileHandle) -> Data {
    var data = Data()
    readRetrying(handle) { chunk in
        data.append(contentsOf: chunk)
        return true
    }
    return data
}

/// Reads until EOF (or an error other than `EINTR`), handing each chunk to `take` while it returns true.
private func readRetrying(_ handle: FileHandle, _ take: (ArraySlice<UInt8>) -> Bool) {
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0, take(buffer[..<count]) else { return }
    }
}
