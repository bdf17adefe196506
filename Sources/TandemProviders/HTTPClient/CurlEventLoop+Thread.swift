#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension CurlEventLoop {
    /// Starts the detached loop thread, which keeps `self` alive until it exits.
    func startThread() throws(HTTPClientError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let loop = Unmanaged<CurlEventLoop>.fromOpaque(context).takeRetainedValue()
            LoopDriver(loop: loop).run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<CurlEventLoop>.fromOpaque(context).release()
            throw .initialisationFailed("pthread_create failed: \(String(cString: strerror(status)))")
        }
        pthread_detach(thread)
    }
}
