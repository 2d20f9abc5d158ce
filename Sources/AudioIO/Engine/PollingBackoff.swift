import Glibc

/// The sleeps of a thread that polls a ring the audio thread fills or drains (a decoder, a file writer).
///
/// Paced by a device with a clock, the other side moves a period at a time at a known speed: every sleep is
/// ``longest``, which is chosen to fit in the ring's slack, so that waiting costs a wakeup or two per period. A
/// device without a clock fills or drains the ring as fast as it can: sleeps start short after progress and double up
/// to ``longest`` while the other side does not move.
///
/// Not for the audio threads themselves, which never sleep but for their device. (A semaphore would wake the
/// poller at once, but posting it is a system call the audio thread must not make.)
struct PollingBackoff {
    /// The first sleep after progress, in microseconds.
    static let shortest: UInt32 = 500

    /// The longest sleep, in microseconds: well inside the ring's slack.
    let longest: UInt32
    /// The first sleep after progress, in microseconds.
    private let first: UInt32
    private var next: UInt32

    /// Sleeps of at most `longest` seconds (at least 20 ms), all of that length when `pacedByDevice`.
    init(longest: Double, pacedByDevice: Bool) {
        self.longest = UInt32(max(0.02, min(longest, 1)) * 1e6)
        first = pacedByDevice ? self.longest : Self.shortest
        next = first
    }

    /// Sleeps, each time longer, up to ``longest``.
    mutating func wait() {
        usleep(next)
        next = min(next * 2, longest)
    }

    /// The other side moved: the next sleep is short again.
    mutating func reset() {
        next = first
    }
}
