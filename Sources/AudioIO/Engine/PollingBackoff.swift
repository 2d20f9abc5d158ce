import Glibc

/// The sleeps of a thread that polls a ring the audio thread fills or drains (a decoder, a file writer):
/// short while the other side keeps moving, doubling up to ``longest`` while it does not, so that waiting
/// on a device with a clock costs tens of wakeups a second rather than thousands. A device without a clock
/// fills or drains the ring at once, which keeps the sleeps short there.
///
/// Not for the audio threads themselves, which never sleep but for their device.
struct PollingBackoff {
    /// The first sleep after progress, in microseconds.
    static let shortest: UInt32 = 500
    /// The longest sleep, in microseconds: well inside the rings' slack (a quarter of a second and more).
    static let longest: UInt32 = 20_000

    private var next = Self.shortest

    /// Sleeps, each time longer, up to ``longest``.
    mutating func wait() {
        usleep(next)
        next = min(next * 2, Self.longest)
    }

    /// The other side moved: the next sleep is short again.
    mutating func reset() {
        next = Self.shortest
    }
}
