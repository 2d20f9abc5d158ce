import Dispatch
import SystemEdge

/// A thread of its own that calls `tick` every `interval` seconds on the monotonic clock until ``stop()``: what
/// redraws a live display. Each tick costs one wake-up of this one thread; the same redraw from a task that sleeps
/// between ticks went through a timer thread, a queue and an executor hop every time, which cost more than the
/// drawing (`Benchmarks/BENCHMARKS.md`, 2026-11-26).
///
/// **Thread safety**: `tick` runs on the ticker's thread only, never twice at once; ``stop()`` may come from any
/// thread but that one, and returns once a tick under way has ended: after it, nothing of `tick` runs any more.
final class Ticker: @unchecked Sendable {
    private let interval: Double
    private let tick: @Sendable () -> Void
    private let stopping = DispatchSemaphore(value: 0)
    private var thread: SystemThread?
    private var isStopped = false

    /// Starts calling `tick` every `interval` seconds, the first time one `interval` from now, on a thread called
    /// `name` (at most 15 characters: what `top -H` and `/proc/PID/task/*/comm` show).
    init(every interval: Double, name: String, _ tick: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.tick = tick
        thread = SystemThread(name: name) { [self] in run() }
    }

    private func run() {
        var next = DispatchTime.now() + interval
        while stopping.wait(timeout: next) == .timedOut {
            tick()
            next = next + interval
            // Late by more than a tick (the process was stopped, the machine busy): on from now, without a burst.
            if next < .now() { next = .now() + interval }
        }
    }

    /// Ends the ticks and waits for the thread. Calling it again does nothing.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        stopping.signal()
        thread?.join()
    }
}
