#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SMPPBindLoop {
    /// Starts the detached thread that runs `run()`; the thread owns the loop until it exits.
    func startThread() throws(SMPPClientError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<SMPPBindLoop>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<SMPPBindLoop>.fromOpaque(context).release()
            throw .resourceUnavailable("pthread_create failed: \(String(cString: strerror(status)))")
        }
        pthread_detach(thread)
    }
}
