import CCurl

/// The body of the loop thread: moves submitted requests onto the multi handle, drives
/// curl, and completes tickets. Not Sendable; created and used on the loop thread only.
///
/// One pass: take the inbox → start new transfers → remove cancelled ones → `perform` →
/// complete finished transfers → `poll` (until a socket or curl's timer is ready, a
/// `wakeup`, or `idlePollMilliseconds`). A wakeup that arrives before `poll` makes it
/// return at once, so no submission or cancellation waits for the idle timeout.
final class LoopDriver {
    private let loop: CurlEventLoop
    private var active: [TransferID: ActiveTransfer] = [:]
    /// Only bounds how long `poll` sleeps with nothing to do; work never waits for it.
    private let idlePollMilliseconds: Int32 = 1000

    init(loop: CurlEventLoop) {
        self.loop = loop
    }

    func run() {
        while true {
            let work = loop.takeWork()
            if work.stopping {
                for ticket in work.submitted { fail(ticket, .shutdown) }
                for id in Array(active.keys) { complete(id, .failure(.shutdown)) }
                break
            }
            for ticket in work.submitted { start(ticket) }
            for id in work.cancelled where active[id] != nil { complete(id, .failure(.cancelled)) }

            let performed = loop.multi.perform()
            if performed != CURLM_OK { failAll(.fromMulti(performed)) }
            for (easy, code) in loop.multi.finishedTransfers() {
                guard let id = Self.transferID(of: easy), let transfer = active[id] else { continue }
                complete(id, transfer.result(code))
            }
            let polled = loop.multi.poll(timeoutMilliseconds: idlePollMilliseconds)
            if polled != CURLM_OK { failAll(.fromMulti(polled)) }
        }
        for waiter in loop.markStopped() { waiter.resume() }
    }

    private func start(_ ticket: TransferTicket) {
        if ticket.isCancelRequested { return fail(ticket, .cancelled) }
        let transfer: ActiveTransfer
        do {
            transfer = try ActiveTransfer(ticket: ticket, configuration: loop.configuration)
        } catch {
            return fail(ticket, error)
        }
        let added = loop.multi.add(transfer.easy.raw)
        guard added == CURLM_OK else { return fail(ticket, .fromMulti(added)) }
        active[ticket.id] = transfer
        loop.counters.activeTransfers.add(1, ordering: .relaxed)
    }

    /// Takes transfer `id` off the multi handle, counts it, and resumes its task.
    private func complete(_ id: TransferID, _ result: TransferResult) {
        guard let transfer = active.removeValue(forKey: id) else { return }
        loop.multi.remove(transfer.easy.raw)
        loop.counters.activeTransfers.subtract(1, ordering: .relaxed)
        loop.counters.connectionsOpened.add(transfer.connectionsOpened, ordering: .relaxed)
        switch result {
        case .success: loop.counters.requestsCompleted.add(1, ordering: .relaxed)
        case .failure: loop.counters.requestsFailed.add(1, ordering: .relaxed)
        }
        transfer.ticket.finish(result)
        // `transfer` is released here: curl_easy_cleanup, after removal from the multi handle.
    }

    private func fail(_ ticket: TransferTicket, _ error: HTTPClientError) {
        loop.counters.requestsFailed.add(1, ordering: .relaxed)
        ticket.finish(.failure(error))
    }

    /// A multi-handle failure: no transfer on it can be trusted to finish.
    private func failAll(_ error: HTTPClientError) {
        for id in Array(active.keys) { complete(id, .failure(error)) }
    }

    private static func transferID(of easy: UnsafeMutableRawPointer) -> TransferID? {
        CurlEasyHandle.privatePointer(of: easy).map { TransferID(rawValue: UInt64(UInt(bitPattern: $0))) }
    }
}
