import AudioIO
import Synchronization
import SystemEdge

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed), turned from "end the process now" into a
/// request a command polls, so that it can finish what it writes before it exits.
///
/// **Thread safety**: make and read it on any thread; the signals arrive on the signal thread.
final class StopSignals: Sendable {
    /// The signals that ask a command to stop.
    static let signals: [Signal] = [.interrupt, .terminate, .hangUp]

    /// The first signal received.
    private final class Received: Sendable {
        let signal = Mutex<Signal?>(nil)
    }

    private let first = Received()
    private let observation: ProcessSignals.Observation

    /// Starts watching; from now on the signals no longer end the process. `onSignal` runs on the signal
    /// thread for each one received.
    init(onSignal: @escaping @Sendable () -> Void = {}) {
        observation = ProcessSignals.observe(Self.signals) { [first] signal in
            first.signal.withLock { $0 = $0 ?? signal }
            onSignal()
        }
    }

    /// The first signal received, if any.
    var received: Signal? { first.signal.withLock { $0 } }
}
