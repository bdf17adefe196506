import CMicroHTTPD

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
    static var uriLog: tandem_mhd_uri_log_callback {
        { cls, uri, _ in
            guard let cls else { return nil }
            let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            let target = uri.map { String(cString: $0) } ?? ""
            return Unmanaged.passRetained(core.beginRequest(target: target)).toOpaque()
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
