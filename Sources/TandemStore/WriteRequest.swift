/// One queued write (internal): the caller's body plus what to call with its outcome.
///
/// Protocol so the writer can queue bodies of different result types.
protocol WriteRequest: AnyObject, Sendable {
    /// Runs the body on the writer connection and keeps its result; `true` when it did not throw.
    func run(on connection: Connection) -> Bool
    /// After a failed ``run(on:)``: the body's error when it says the database cannot be written at all
    /// (``StoreError/isStorageFailure``), else nil.
    var storageFailure: StoreError? { get }
    /// Resumes the caller exactly once: with `batchError` if the body succeeded but its
    /// transaction did not commit, otherwise with the body's own result.
    func finish(batchError: StoreError?)
    /// Resumes the caller with `error` without having run the body.
    func reject(_ error: StoreError)
}

/// `Failure` is ``StoreError`` for typed bodies, or `any Error` for bodies that throw their own
/// errors; `wrap` turns the store's own errors (closed, failed batch) into `Failure`.
///
/// `completion` is called exactly once, on the writer thread (or, when the writer refused the job, on the
/// submitting thread) — it must not block.
///
/// `@unchecked Sendable` invariant: `result` is written by ``run(on:)`` and read by ``finish(batchError:)``,
/// both only on the writer thread, in that order; the submitting task only creates the request.
/// `body`, `wrap` and `completion` are immutable and Sendable.
final class TypedWriteRequest<T: Sendable, Failure: Error>: WriteRequest, @unchecked Sendable {
    private let body: @Sendable (Connection) throws(Failure) -> T
    private let wrap: @Sendable (StoreError) -> Failure
    private let completion: @Sendable (Result<T, Failure>) -> Void
    private var result: Result<T, Failure>?
    private(set) var storageFailure: StoreError?

    init(
        body: @escaping @Sendable (Connection) throws(Failure) -> T,
        wrap: @escaping @Sendable (StoreError) -> Failure,
        completion: @escaping @Sendable (Result<T, Failure>) -> Void
    ) {
        self.body = body
        self.wrap = wrap
        self.completion = completion
    }

    func run(on connection: Connection) -> Bool {
        do throws(Failure) {
            result = .success(try body(connection))
            return true
        } catch {
            result = .failure(error)
            if let storeError = error as? StoreError, storeError.isStorageFailure { storageFailure = storeError }
            return false
        }
    }

    func finish(batchError: StoreError?) {
        switch (result, batchError) {
        case (.success, .some(let error)), (.none, .some(let error)):
            completion(.failure(wrap(error)))
        case (.some(let result), _):
            completion(result)
        case (.none, .none):
            completion(.failure(wrap(.transactionAborted(message: "write was never run"))))
        }
    }

    func reject(_ error: StoreError) {
        completion(.failure(wrap(error)))
    }
}
