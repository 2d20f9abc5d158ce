import Dispatch
import Glibc
import SystemPackage

/// A thread of its own that calls `tick` every `interval` seconds on the monotonic clock until ``stop()``: what
/// redraws a live display. Each tick costs one wake-up of this one thread; the same redraw from a task that sleeps
/// between ticks went through a timer thread, a queue and an executor hop every time, which cost more than the
/// drawing (`Benchmarks/BENCHMARKS.md`, 2026-11-26).
///
/// **Thread safety**: `tick` runs on the ticker's thread only, never twice at once; ``stop()`` may come from any
/// thread but that one, and returns once a tick under way has ended: after it, nothing of `tick` runs any more.
final class Ticker: @unchecked Sendable {
    private let interval: Double
    private let name: String
    private let tick: @Sendable () -> Void
    private let stopping = DispatchSemaphore(value: 0)
    private var thread = pthread_t()
    private var isStopped = false

    /// Starts calling `tick` every `interval` seconds, the first time one `interval` from now, on a thread called
    /// `name` (at most 15 characters: what `top -H` and `/proc/PID/task/*/comm` show).
    init(every interval: Double, name: String, _ tick: @escaping @Sendable () -> Void) {
        self.name = name
        self.interval = interval
        self.tick = tick
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Ticker>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    private func run() {
        // What pthread_setname_np does, which the Glibc module leaves out (a GNU extension).
        if let comm = try? FileDescriptor.open("/proc/thread-self/comm", .writeOnly) {
            _ = try? comm.closeAfter { try comm.writeAll(name.utf8.prefix(15)) }
        }
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
        pthread_join(thread, nil)
    }
}
