import CMicroHTTPD
import Synchronization

/// A libmicrohttpd connection handle (`struct MHD_Connection *`).
///
/// `@unchecked Sendable` invariant: the pointer is only ever passed to
/// libmicrohttpd. Every call except `resume()` is made on the worker thread
/// currently running the access handler for this connection (libmicrohttpd
/// serialises those calls per connection). `resume()` may come from any
/// thread, but only while the connection is suspended — libmicrohttpd cannot
/// close or free a suspended connection — and exactly once per suspension;
/// `AsyncResponseSlot` enforces both.
struct MHDConnection: @unchecked Sendable {
    let handle: OpaquePointer

    func suspend() { MHD_suspend_connection(handle) }

    func resume() { MHD_resume_connection(handle) }

    /// The request headers in wire order, their size as `name: value\r\n` lines, and whether every field
    /// name is a token (RFC 9110 §5.1: no spaces, separators or controls).
    func requestHeaders() -> (headers: HTTPHeaders, wireBytes: Int, namesAreTokens: Bool) {
        var collected = (headers: HTTPHeaders(), wireBytes: 0, namesAreTokens: true)
        // Counted first (no iterator), so the fields are stored in one allocation.
        collected.headers.reserveCapacity(Int(MHD_get_connection_values_n(handle, .HEADER_KIND, nil, nil)))
        withUnsafeMutablePointer(to: &collected) { pointer in
            _ = MHD_get_connection_values_n(handle, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls else { return .NO }
                let target = cls.assumingMemoryBound(to: (headers: HTTPHeaders, wireBytes: Int, namesAreTokens: Bool).self)
                let nameBytes = UnsafeRawBufferPointer(start: key, count: key == nil ? 0 : keySize)
                if nameBytes.isEmpty || !nameBytes.allSatisfy(HTTPToken.isTokenByte) { target.pointee.namesAreTokens = false }
                let name = String(decoding: nameBytes, as: UTF8.self)
                let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
                target.pointee.headers.add(name: name, value: text)
                target.pointee.wireBytes += keySize + valueSize + 4
                return .YES
            }, pointer)
        }
        return collected
    }

    /// Whether the connection was marked over `maxConnectionsPerAddress` when it started.
    var isOverAddressLimit: Bool {
        tandem_mhd_socket_context(handle) != nil
    }

    /// The peer's IP address as text, if libmicrohttpd knows it.
    func clientAddress() -> String? {
        guard let address = tandem_mhd_client_address(handle) else { return nil }
        return ListeningSocket.text(of: address)
    }

    /// Queues a response made once for any number of connections (see ``SharedEmptyResponses``).
    func queue(status: Int, shared response: SharedEmptyResponses.Handle) -> Bool {
        MHD_queue_response(handle, UInt32(clamping: status), response.pointer) == .YES
    }

    /// Builds a response (copying `body`), adds the headers and queues it.
    /// `Content-Length` headers are skipped: libmicrohttpd computes it.
    /// Returns false if libmicrohttpd refused (e.g. not in a state that accepts a response).
    func queue(status: Int, headers: HTTPHeaders, body: [UInt8], closeConnection: Bool) -> Bool {
        let created: OpaquePointer? = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response = created else { return false }
        defer { MHD_destroy_response(response) }
        for (name, value) in headers where !ASCIICaseInsensitive.equals(name, "Content-Length") {
            _ = MHD_add_response_header(response, name, value)
        }
        if closeConnection {
            _ = MHD_add_response_header(response, "Connection", "close")
        }
        return MHD_queue_response(handle, UInt32(clamping: status), response) == .YES
    }
}

/// Responses without body or headers (a 204), one per status, created on first use and queued for any number of
/// connections — libmicrohttpd counts a response's references under its own lock and never changes it once
/// queued — instead of one `MHD_create_response_from_buffer` (allocations and a mutex) per request. Destroyed
/// with their server (a connection still sending one holds its own reference).
final class SharedEmptyResponses: Sendable {
    /// A `struct MHD_Response *`: only passed to libmicrohttpd, which synchronises its uses.
    struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let responses = Mutex<[Int: Handle]>([:])

    /// The shared response for `status`; nil if libmicrohttpd could not make one.
    func response(for status: Int) -> Handle? {
        responses.withLock { responses in
            if let made = responses[status] { return made }
            guard let made = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) else { return nil }
            responses[status] = Handle(pointer: made)
            return Handle(pointer: made)
        }
    }

    deinit {
        responses.withLock { responses in
            for response in responses.values { MHD_destroy_response(response.pointer) }
        }
    }
}
