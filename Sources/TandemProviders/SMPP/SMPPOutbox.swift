/// The parts waiting for a bind with room in its window: one queue shared by every bind of a client,
/// first in, first out, except that parts handed back (throttled, or in flight on a lost connection) go
/// to the front so they keep their place. Pure; the dispatcher holds it under a lock.
///
/// Also remembers which binds sleep for lack of work (`idle`), so `enqueue` wakes only those.
///
/// Not guaranteed: FIFO order across binds (several binds take from the same queue) or across a
/// hand-back (a part handed back overtakes parts queued after it).
struct SMPPOutbox {
    private var queue: [SMPPPart] = []
    private var head = 0
    /// Handed-back parts, the next one last.
    private var front: [SMPPPart] = []
    /// No part waiting has a deadline before this (nil: no part waiting). May be early, never late.
    private(set) var earliestDeadline: ContinuousClock.Instant?
    /// Binds that found nothing to do and sleep until `enqueue` wakes them.
    private(set) var idle: Set<Int> = []

    var count: Int { queue.count - head + front.count }

    /// Adds `parts` at the back; returns the idle binds to wake (and forgets them).
    mutating func enqueue(_ parts: [SMPPPart]) -> Set<Int> {
        queue.append(contentsOf: parts)
        note(parts)
        defer { idle.removeAll() }
        return idle
    }

    /// Puts `parts` back at the front, in their order; returns the idle binds to wake.
    mutating func handBack(_ parts: [SMPPPart]) -> Set<Int> {
        front.append(contentsOf: parts.reversed())
        note(parts)
        defer { idle.removeAll() }
        return idle
    }

    /// The next part whose submission is still open, or nil — then `bind` is recorded as idle.
    /// Parts of finished submissions are dropped; parts past their deadline are dropped and their
    /// submissions returned in `expired` for the caller to reject (outside the lock).
    mutating func next(for bind: Int, now: ContinuousClock.Instant, expired: inout [SMPPSubmission]) -> SMPPPart? {
        while let part = popFirst() {
            if part.submission.isFinished { continue }
            if part.submission.deadline <= now {
                expired.append(part.submission)
                continue
            }
            return part
        }
        idle.insert(bind)
        compact()
        return nil
    }

    /// Drops every waiting part past its deadline (or of a finished submission); returns the expired
    /// submissions, and recomputes `earliestDeadline` exactly.
    mutating func expire(now: ContinuousClock.Instant) -> [SMPPSubmission] {
        var expired: [SMPPSubmission] = []
        let keep: (SMPPPart) -> Bool = { part in
            if part.submission.isFinished { return false }
            if part.submission.deadline <= now {
                expired.append(part.submission)
                return false
            }
            return true
        }
        front = front.filter(keep)
        queue = Array(queue[head...]).filter(keep)
        head = 0
        earliestDeadline = (front + queue).map(\.submission.deadline).min()
        return expired
    }

    /// Empties the queue (at shutdown); returns the parts that were waiting.
    mutating func removeAll() -> [SMPPPart] {
        defer {
            queue = []
            head = 0
            front = []
            earliestDeadline = nil
        }
        return front.reversed() + queue[head...]
    }

    private mutating func popFirst() -> SMPPPart? {
        if let part = front.popLast() { return part }
        guard head < queue.count else { return nil }
        let part = queue[head]
        head += 1
        if head >= 4_096, head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return part
    }

    private mutating func note(_ parts: [SMPPPart]) {
        for part in parts where earliestDeadline.map({ part.submission.deadline < $0 }) ?? true {
            earliestDeadline = part.submission.deadline
        }
    }

    /// Releases consumed slots once the queue has drained.
    private mutating func compact() {
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
            earliestDeadline = nil
        }
    }
}
