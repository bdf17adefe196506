#if canImport(Glibc)
import Glibc
#endif

extension ProcessIO {
    /// Hands the allocator's free memory back to the kernel (glibc's `malloc_trim(0)`, looked up at run time: Swift's
    /// Glibc module does not declare it). For after a burst that freed much, such as recovery's pages: their memory
    /// stays with glibc's per-thread arenas otherwise, counted in the process's resident size. Does nothing where
    /// the C library has no `malloc_trim`.
    static func releaseFreeHeap() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
}
