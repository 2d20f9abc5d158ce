import Dispatch
import Glibc
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM, turned from "end the process now" into a request a command polls, so
/// that it can finish what it writes before it exits.
///
/// **Thread safety**: make and read it on one thread; the signals are received on a dispatch queue.
final class StopSignals {
    /// The first signal received.
    private final class Received: Sendable {
        let number = Mutex<Int32?>(nil)
    }

    private let first = Received()
    private var sources: [any DispatchSourceSignal] = []

    /// Starts watching; from now on the two signals no longer end the process.
    init() {
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [first] in first.number.withLock { $0 = $0 ?? number } }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal received, if any.
    var received: Int32? { first.number.withLock { $0 } }
}
