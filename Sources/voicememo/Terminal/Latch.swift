import Synchronization

/// A fact one task sets, once and for good, and another looks at: playback has ended, the user asked to stop.
final class Latch: Sendable {
    private let value = Mutex(false)

    func set() { value.withLock { $0 = true } }

    var isSet: Bool { value.withLock { $0 } }
}
