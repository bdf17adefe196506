import Dispatch

/// Where the gateway decodes request bodies: small ones where the request already runs, large ones on one
/// thread of their own, one at a time.
///
/// The gateway's handlers run in Swift's cooperative pool (one thread per core), which the scheduler, the
/// dispatcher and every other request need too. Decoding is linear in the body (`MiniXML`, `JSONParser`)
/// but a body of `HTTPServer.Configuration.maxBodyBytes` (8 MiB) still takes up to a few hundred
/// milliseconds, so bodies above `inlineLimit` are decoded here instead: a pool thread waits for them
/// suspended, not busy. Guaranteed: at most one large body is being decoded at any time, so requests with
/// large bodies slow only one another. Not guaranteed: any order among them beyond arrival order.
final class CMBodyDecodingLane: Sendable {
    /// Bodies up to this many bytes are decoded inline (well under a millisecond of work).
    static let inlineLimit = 64 * 1024

    private let queue = DispatchQueue(label: "tandem.gateway.decode", qos: .utility)

    /// `decode` applied to `body`: inline when the body is at most `inlineLimit` bytes, else on the lane.
    func decode<T: Sendable>(_ body: [UInt8], _ decode: @escaping @Sendable ([UInt8]) -> T) async -> T {
        guard body.count > Self.inlineLimit else { return decode(body) }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: decode(body)) }
        }
    }
}
