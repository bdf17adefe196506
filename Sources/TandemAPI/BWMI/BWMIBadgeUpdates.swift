import Synchronization
import TandemCore

/// Coalesces the badge-only updates acknowledgements ask for per device, and sends them in batches.
///
/// Per device, at most one update is queued or being sent at a time; acks that arrive meanwhile ask for one more,
/// queued once it was sent, with the count of that moment. A burst of acks for one device thus costs at most two
/// pushes, the last carrying the final count.
///
/// Across devices, updates wait in one queue: whoever ``request(_:)`` or ``finished(_:)`` answers `true` starts a
/// sender, which ``take()``s everything queued by the time it runs and sends it as one batch; what is queued after
/// that starts the next sender. The acks of one scheduler commit thus cost one task and (with a
/// ``BatchPushSender``) one push call, not one of each per ack — a task and a push call per ack were a third of an
/// ack's CPU in the benchmark (`docs/benchmarks.md`, "BWMI acks at 0.4× and above").
///
/// Only bookkeeping: nothing here is durable, and a crash forgets the updates asked for.
final class BWMIBadgeUpdates: Sendable {
    /// One update to send.
    struct Update: Sendable {
        let device: BWMIDevice
        let app: App
        /// The live count the ack's commit left; nil: read when sent.
        let liveCount: Int?
    }

    private struct State {
        /// Devices with an update queued or being sent, and whether another ack came in meanwhile.
        var pending: [DeviceID: Bool] = [:]
        var queue: [Update] = []
        /// Whether a sender was started that has not taken the queue yet.
        var senderStarting = false

        /// Queues `update`: true when no sender is about to take it (the caller starts one).
        mutating func enqueue(_ update: Update) -> Bool {
            queue.append(update)
            guard !senderStarting else { return false }
            senderStarting = true
            return true
        }
    }

    private let state = Mutex(State())

    init() {}

    /// An ack asks for `update`: true when the caller is to start a sender; false when a sender will take it, or when
    /// the device's update is queued or being sent already (then one more follows it).
    func request(_ update: Update) -> Bool {
        state.withLock { state in
            if state.pending[update.device.deviceID] != nil {
                state.pending[update.device.deviceID] = true
                return false
            }
            state.pending[update.device.deviceID] = false
            return state.enqueue(update)
        }
    }

    /// A sender's batch: every update queued; the next request starts another sender.
    func take() -> [Update] {
        state.withLock { state in
            state.senderStarting = false
            var batch: [Update] = []
            swap(&batch, &state.queue)
            return batch
        }
    }

    /// `update` was sent (or given up). When acks for its device came in meanwhile, another update is queued, its count
    /// read when sent: true when the caller is to start a sender for it.
    func finished(_ update: Update) -> Bool {
        state.withLock { state in
            let device = update.device.deviceID
            guard state.pending[device] == true else {
                state.pending[device] = nil
                return false
            }
            state.pending[device] = false
            return state.enqueue(Update(device: update.device, app: update.app, liveCount: nil))
        }
    }

    /// Devices with an update queued or being sent (for tests).
    var inProgress: Int { state.withLock { $0.pending.count } }
}
