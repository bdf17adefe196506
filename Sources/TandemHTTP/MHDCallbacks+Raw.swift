import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `@convention(c)` callbacks given to libmicrohttpd. Each one turns the C
/// arguments into Swift values and forwards to `ServerCore`.
///
/// They are closures without captures defined here in the (nonisolated)
/// library, so they are safe to call from libmicrohttpd's worker threads. The
/// `cls` argument is an unretained `ServerCore` that outlives the daemon.
/// `*req_cls` holds a retained `RequestContext` from `uriLog` until `completed`
/// releases it.
enum MHDCallbacks {
    /// Sees the raw request-target right after the request line is parsed; its
    /// result becomes `*req_cls`.
    ///
    /// Tandem parses the query itself (from this copy of the target), so the query is then hidden from
    /// libmicrohttpd: 0.9.75 finds the `?` before this call and afterwards stores every argument as a record
    /// in the connection's memory pool, and a few hundred short arguments exhaust the pool, after which it
    /// never answers. Ending the text right after the `?` leaves it nothing to parse. (The buffer is
    /// libmicrohttpd's own writable read buffer; the callback's `const` is only its declaration.)
    static var uriLog: tandem_mhd_uri_log_callback {
        { cls, uri, _ in
            guard let cls else { return nil }
            let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            let target = uri.map { String(cString: $0) } ?? ""
            if let uri, let mark = strchr(uri, Int32(UInt8(ascii: "?"))) {
                UnsafeMutablePointer(mutating: mark + 1).pointee = 0
            }
            return Unmanaged.passRetained(core.beginRequest(target: target)).toOpaque()
        }
    }

    /// Refuses a new connection when its address already holds more than `maxConnectionsPerAddress` allows.
    static var acceptPolicy: MHD_AcceptPolicyCallback {
        { cls, address, _ in
            guard let cls, let address, let client = ClientAddress(address) else { return .YES }
            let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            return core.connectionsPerAddress.admits(client) ? .YES : .NO
        }
    }

    /// Counts connections per address; marks one over the limit through its socket context (a non-nil
    /// sentinel, never dereferenced) and gives it a short idle timeout.
    static var notifyConnection: tandem_mhd_notify_connection_callback {
        { cls, connection, socketContext, event in
            guard let cls, let connection, let socketContext else { return }
            let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            guard core.connectionsPerAddress.isEnabled,
                  let raw = tandem_mhd_client_address(connection), let client = ClientAddress(raw) else { return }
            switch event {
            case .CONNECTION_NOTIFY_STARTED:
                if core.connectionsPerAddress.opened(client) {
                    socketContext.pointee = UnsafeMutableRawPointer(bitPattern: 1)
                    _ = tandem_mhd_set_connection_timeout(connection, ConnectionsPerAddress.overLimitIdleSeconds)
                }
            case .CONNECTION_NOTIFY_CLOSED:
                core.connectionsPerAddress.closed(client)
                socketContext.pointee = nil
            default:
                break
            }
        }
    }

    static var access: MHD_AccessHandlerCallback {
        { cls, connection, _, method, _, uploadData, uploadDataSize, reqCls in
            guard let cls, let connection, let uploadDataSize, let reqCls else { return .NO }
            let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            let context: RequestContext
            if let existing = reqCls.pointee {
                context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
            } else {
                // No URI-log call happened (not expected): start the request here.
                let fresh = core.beginRequest(target: "")
                reqCls.pointee = Unmanaged.passRetained(fresh).toOpaque()
                context = fresh
            }
            let upload = UnsafeRawBufferPointer(start: uploadData, count: uploadData == nil ? 0 : uploadDataSize.pointee)
            let keepGoing = core.handle(
                context,
                connection: MHDConnection(handle: connection),
                method: { method.map { String(cString: $0) } ?? "" },
                upload: upload
            )
            uploadDataSize.pointee = 0 // every chunk is always fully consumed (stored or discarded)
            return keepGoing ? .YES : .NO
        }
    }

    static var completed: MHD_RequestCompletedCallback {
        { cls, _, reqCls, termination in
            guard let cls, let reqCls, let raw = reqCls.pointee else { return }
            reqCls.pointee = nil
            let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
            core.finishRequest(context, deliveredResponse: termination == .REQUEST_TERMINATED_COMPLETED_OK)
        }
    }
}
