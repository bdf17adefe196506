import TandemCore
import TandemHTTP

/// An API service's refusal: an HTTP status and a message, which the service's protocol renders in its own words.
protocol ServiceRefusal: Error {
    init(_ status: HTTPStatus, _ message: String, retryAfter: Duration?)
}

/// What an API service does around the store and the scheduler: a failure is logged, naming the service, and
/// answered 500 in the service's own refusal, without details (they go to the log only).
protocol StoreGuarded {
    associatedtype Refusal: ServiceRefusal
    var logger: Logger { get }
    /// The service as the log names it (`device API`, `BWMI`).
    var storeAccessName: String { get }
}

extension StoreGuarded {
    /// A read from the store.
    func reading<T>(_ body: () throws -> T) throws(Refusal) -> T {
        do {
            return try body()
        } catch {
            throw storeFailure(error)
        }
    }

    /// A read from the store through a port (asynchronous: a backend may read over the network).
    func reading<T>(_ body: () async throws -> T) async throws(Refusal) -> T {
        do {
            return try await body()
        } catch {
            throw storeFailure(error)
        }
    }

    /// A write to the store or the scheduler.
    func writing<T>(_ body: () async throws -> T) async throws(Refusal) -> T {
        do {
            return try await body()
        } catch {
            throw storeFailure(error)
        }
    }

    func storeFailure(_ error: any Error) -> Refusal {
        if isPartitionUnavailable(error) {
            // A cluster node whose delivery is changing owner, or whose owner could not be reached (docs/cluster.md).
            logger.warning("\(storeAccessName): the delivery's node cannot take this now", ["error": .string("\(error)")])
            return Refusal(.serviceUnavailable, "the request could not be completed now; try again", retryAfter: .seconds(2))
        }
        logger.error("\(storeAccessName) store access failed", ["error": .string("\(error)")])
        return Refusal(.internalServerError, "the request could not be completed; try again", retryAfter: nil)
    }
}
