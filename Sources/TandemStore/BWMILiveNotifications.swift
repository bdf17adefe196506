import Synchronization
import TandemCore

/// Each device's live BWMI managed notifications (recorded, not acknowledged; each with its expiry), as the writer
/// left them: what the badge after an acknowledgement counts, without reading the database.
///
/// Why it exists (migration 28): counting a device's live notifications in SQL needs an index keyed by device that
/// holds the acknowledged state, and an acknowledgement then removes its entry from that index — a page at a random
/// place (the devices' notifications interleave), written to the log and copied back at every checkpoint, with the
/// count's scan on top. That was about 20 µs of the writer's and the checkpointer's time per acknowledgement, a
/// quarter of its server CPU (`docs/benchmarks.md`, "BWMI acks at 0.4× and above"). With the count held here, an
/// acknowledgement writes one column of its own row, which no index holds.
///
/// Only the writer loads and changes what is held, inside its write jobs, so what is held is the database as the
/// writer's transaction sees it: a device is loaded (``count(_:at:load:)``, on the writer's connection) when a
/// notification is recorded for it while there is room, or else when an acknowledgement first counts it; then it is
/// changed by each notification recorded for it (``recorded(_:_:)``) and each one acknowledged
/// (``acknowledged(_:delivery:)``). A send's badges are counted from it too, for the devices held. A job that fails
/// forgets the devices it changed before the writer runs another job (``forget(_:)``: in its own `catch`, and in its
/// completion when its transaction fails), so a rolled-back change is never counted past its transaction. Readers
/// may look (``heldCount(_:at:)``) but never load: a reader's snapshot may be older than a change the writer already
/// applied.
///
/// Not guaranteed: that a reader's count leaves out a change still being committed (a badge is a hint: the next
/// count is right again); more than `capacity` devices (beyond, an arbitrary one is forgotten, and loaded again when
/// next counted); changes made to `bwmi_notifications` by another process (only the serving process writes it).
final class BWMILiveNotifications: Sendable {
    /// One live notification: its delivery's key and its expiry (unix milliseconds).
    struct Live: Sendable, Hashable {
        let delivery: Int64
        let expires: Int64
    }

    let capacity: Int
    private let devices = Mutex<[DeviceID: [Live]]>([:])

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Writer only: `device`'s live count at `now`, dropping what expired; read with `load` (the device's live
    /// notifications in the writer's transaction) when the device is not held, and held from then on.
    func count(_ device: DeviceID, at now: Timestamp, load: () throws(StoreError) -> [Live]) throws(StoreError) -> Int {
        let held = devices.withLock { devices -> Int? in
            guard devices[device] != nil else { return nil }
            devices[device]!.removeAll { $0.expires <= now.milliseconds }
            return devices[device]!.count
        }
        if let held { return held }
        let live = try load().filter { $0.expires > now.milliseconds }
        guard capacity > 0 else { return live.count }
        devices.withLock { devices in
            if devices.count >= capacity { devices.remove(at: devices.startIndex) }
            devices[device] = live
        }
        return live.count
    }

    /// Writer only: a notification recorded for `device` (counted if the device is held).
    func recorded(_ device: DeviceID, _ live: Live) {
        devices.withLock { devices in
            guard devices[device] != nil, !devices[device]!.contains(where: { $0.delivery == live.delivery }) else { return }
            devices[device]!.append(live)
        }
    }

    /// Writer only: `device` acknowledged the notification of `delivery` (no longer counted if the device is held).
    func acknowledged(_ device: DeviceID, delivery: Int64) {
        devices.withLock { devices in
            guard let index = devices[device]?.firstIndex(where: { $0.delivery == delivery }) else { return }
            devices[device]!.swapAt(index, devices[device]!.count - 1)
            devices[device]!.removeLast()
        }
    }

    /// `device`'s live count at `now` if it is held, else nil (any thread; nothing is loaded or dropped).
    func heldCount(_ device: DeviceID, at now: Timestamp) -> Int? {
        devices.withLock { devices in
            devices[device].map { live in live.count { $0.expires > now.milliseconds } }
        }
    }

    /// Forgets `forgotten` (their changes were rolled back): each is loaded again when next counted.
    func forget(_ forgotten: some Sequence<DeviceID>) {
        devices.withLock { devices in
            for device in forgotten { devices[device] = nil }
        }
    }

    /// Whether another device can be held without forgetting one.
    var hasRoom: Bool { devices.withLock { $0.count < capacity } }

    /// Devices held (for tests).
    var heldDevices: Int { devices.withLock { $0.count } }
}
