import Synchronization
import TandemCore

/// Coalesces the badge-only updates acknowledgements ask for, per device: at most one update per device is
/// being sent at a time, and acks that arrive while it is sent ask for one more — sent once it finished, with
/// the count of that moment. A burst of acks for one device thus costs at most two pushes, the last carrying
/// the final count.
///
/// Only bookkeeping: whoever ``request(_:)`` answers `true` sends, and calls ``finished(_:)`` after each send
/// until it answers `false`. Nothing here is durable: a crash forgets the updates asked for.
final class BWMIBadgeUpdates: Sendable {
    /// Devices with an update being sent, and whether another ack came in meanwhile.
    private let pending = Mutex<[DeviceID: Bool]>([:])

    init() {}

    /// An ack asks for `device`'s badge update: true when the caller is to send it (none is being sent);
    /// false when one is being sent already (its sender sends another afterwards).
    func request(_ device: DeviceID) -> Bool {
        pending.withLock { pending in
            if pending[device] != nil {
                pending[device] = true
                return false
            }
            pending[device] = false
            return true
        }
    }

    /// The sender of `device`'s update finished one send: true when acks came in meanwhile (send again, with
    /// a fresh count), false when none did (the device has no update in progress any more).
    func finished(_ device: DeviceID) -> Bool {
        pending.withLock { pending in
            if pending[device] == true {
                pending[device] = false
                return true
            }
            pending[device] = nil
            return false
        }
    }

    /// Devices with an update in progress (for tests).
    var inProgress: Int { pending.withLock { $0.count } }
}
