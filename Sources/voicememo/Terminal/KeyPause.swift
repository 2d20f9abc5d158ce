import Synchronization

/// Whether the user paused with the space key: Ctrl-Z and `fg` leave such a pause as they found it, and the
/// notices say so.
///
/// **Thread safety**: set by the task that reads the keys, read by the session's observer.
final class KeyPause: Sendable {
    private let paused = Mutex(false)

    var isOn: Bool { paused.withLock { $0 } }

    func set(_ isOn: Bool) { paused.withLock { $0 = isOn } }
}
