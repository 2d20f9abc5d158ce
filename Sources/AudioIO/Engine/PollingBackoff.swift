import Dispatch
import SystemEdge

/// The sleeps of a thread that polls a ring the audio thread fills or drains (a decoder, a file writer).
///
/// Paced by a device with a clock, the other side moves a period at a time at a known speed: every sleep is
/// ``longest``, which is chosen to fit in the ring's slack, so that waiting costs a wakeup or two per period, or, for a
/// known number of frames, the whole periods they take to come (``wait(forFrames:periodFrames:rate:)``). A device
/// without a clock fills or drains the ring as fast as it can: sleeps start short after progress and double up to
/// ``longest`` while the other side does not move.
///
/// Not for the audio threads themselves, which never sleep but for their device. (A semaphore would wake the
/// poller at once, but posting it is a system call the audio thread must not make; a control thread may, to cut a
/// sleep short: `interruption`.)
struct PollingBackoff {
    /// The first sleep after progress, in microseconds.
    static let shortest: UInt32 = 500

    /// The longest sleep, in microseconds: well inside the ring's slack.
    let longest: UInt32
    private let pacedByDevice: Bool
    /// Ends a sleep early when signalled; `nil` for sleeps that run their course.
    private let interruption: DispatchSemaphore?
    /// The first sleep after progress, in microseconds.
    private let first: UInt32
    private var next: UInt32

    /// Sleeps of at most `longest` seconds (at least 20 ms), all of that length when `pacedByDevice`, each cut short
    /// when `interruption` is signalled.
    init(longest: Double, pacedByDevice: Bool, interruption: DispatchSemaphore? = nil) {
        self.longest = UInt32(max(0.02, min(longest, 1)) * 1e6)
        self.pacedByDevice = pacedByDevice
        self.interruption = interruption
        first = pacedByDevice ? self.longest : Self.shortest
        next = first
    }

    /// Sleeps, each time longer, up to ``longest``.
    mutating func wait() {
        sleep(next)
        next = min(next * 2, longest)
    }

    /// Paced by a device: sleeps until `frames` more have come, which the device's periods of `periodFrames` bring
    /// whole at `rate` frames a second, and a little longer (a quarter of a period, at most 10 ms), so that the wake
    /// finds them come rather than one period short; at most ``longest``, and at most `limit` seconds (something else
    /// due then). Without a clock: as ``wait()``.
    ///
    /// A wake costs tens of microseconds of CPU on a virtual machine: sleeping the whole wait at once, rather than in
    /// slices, is what keeps a writer's waiting cheap.
    mutating func wait(forFrames frames: Int, periodFrames: Int, rate: Double, limit: Double = .infinity) {
        guard pacedByDevice, frames > 0, periodFrames > 0, rate > 0 else { return wait() }
        let periods = (frames + periodFrames - 1) / periodFrames
        let seconds = (Double(periods * periodFrames) + min(Double(periodFrames) / 4, rate / 100)) / rate
        sleep(min(UInt32(min(seconds, max(limit, 0)) * 1e6), longest))
    }

    /// The other side moved: the next sleep is short again.
    mutating func reset() {
        next = first
    }

    private func sleep(_ microseconds: UInt32) {
        guard let interruption else { return MonotonicClock.sleep(nanoseconds: Int(microseconds) * 1_000) }
        _ = interruption.wait(timeout: .now() + .microseconds(Int(microseconds)))
    }
}
