/// Serialises requests that carry the same `(account, Idempotency-Key)`: the second waits until the first
/// has stored its response, then finds it. Keys of different accounts never wait on each other.
///
/// Not guaranteed: ordering between more than two waiters of one key (each gets its turn, in no
/// particular order).
actor IdempotencyGate {
    private var held: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ key: String) async {
        while held.contains(key) {
            await withCheckedContinuation { continuation in waiters[key, default: []].append(continuation) }
        }
        held.insert(key)
    }

    func release(_ key: String) {
        held.remove(key)
        if var queue = waiters[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[key] = queue.isEmpty ? nil : queue
            next.resume()
        }
    }
}
