import AudioIO
import Glibc
import Synchronization

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed), turned from "end the process now" into a
/// request a command polls, so that it can finish what it writes before it exits.
///
/// **Thread safety**: make and read it on any thread; the signals arrive on the signal thread.
final class StopSignals: Sendable {
    /// The signals that ask a command to stop.
    static let numbers = [SIGINT, SIGTERM, SIGHUP]

    /// The first signal received.
    private final class Received: Sendable {
        let number = Mutex<Int32?>(nil)
    }

    private let first = Received()
    private let observation: ProcessSignals.Observation

    /// Starts watching; from now on the signals no longer end the process. `onSignal` runs on the signal
    /// thread for each one received.
    init(onSignal: @escaping @Sendable () -> Void = {}) {
        observation = ProcessSignals.observe(Self.numbers) { [first] number in
            first.number.withLock { $0 = $0 ?? number }
            onSignal()
        }
    }

    /// The first signal received, if any.
    var received: Int32? { first.number.withLock { $0 } }
}
