import Synchronization

/// Who hears what happens to the stream engines as a whole: a device opened, failed, suspended by the system and
/// resumed. The session subscribes, and turns these into its events and its policy; nothing in `Engine/` knows who
/// listens. (What happens to one voice or tap goes to its owner instead.)
///
/// Called on an engine's event thread or on the thread that opened it; a call returns before the engine goes on
/// (on a suspension, the session pauses its players and recorders first).
protocol EngineObserver: AnyObject, Sendable {
    /// `device` was opened for `direction`.
    func engineOpened(_ device: String, direction: StreamDirection)
    /// The engine of `device` failed for good: it is closed, and its voices or taps were told.
    func engineFailed(_ device: String, direction: StreamDirection, error: AudioDeviceError)
    /// The system suspended `device`; the engine waits to resume it.
    func engineSuspended(_ device: String)
    /// `device` is back from a suspension (or could not be resumed, and the engine fails next).
    func engineResumed(_ device: String)
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
