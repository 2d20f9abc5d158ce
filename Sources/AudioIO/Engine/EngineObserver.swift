import Synchronization

/// Who hears what happens to the stream engines as a whole: a device opened, failed, interrupted (suspended by the
/// system, taken by another program) and back. The session subscribes, and turns these into its events and its policy; nothing in `Engine/` knows who
/// listens. (What happens to one voice or tap goes to its owner instead.)
///
/// Called on an engine's event thread or on the thread that opened it; a call returns before the engine goes on
/// (on an interruption, the session pauses its players and recorders first).
protocol EngineObserver: AnyObject, Sendable {
    /// `device` was opened for `direction`.
    func engineOpened(_ device: String, direction: StreamDirection)
    /// The engine of `device` failed for good: it is closed, and its voices or taps were told.
    func engineFailed(_ device: String, direction: StreamDirection, error: AudioDeviceError)
    /// `device` was suspended by the system or taken by another program; the engine waits to bring it back.
    func engineInterrupted(_ device: String, by interruption: StreamInterruption)
    /// `device` is back from `interruption` (or could not be brought back, and the engine fails next).
    func engineResumed(_ device: String, from interruption: StreamInterruption)
}

/// The observers of every engine, held weakly.
enum EngineObservers {
    private struct Weak {
        weak var value: (any EngineObserver)?
    }

    private static let observers = Mutex<[Weak]>([])

    /// Adds `observer`; it hears every engine from now on, until it is released.
    static func add(_ observer: any EngineObserver) {
        observers.withLock { $0 = $0.filter { $0.value != nil } + [Weak(value: observer)] }
    }

    /// Tells every observer, in the order they were added.
    static func tell(_ body: (any EngineObserver) -> Void) {
        for observer in observers.withLock({ $0.compactMap(\.value) }) { body(observer) }
    }
}
