import Synchronization

/// The position a player reports while it plays forward, never before one it reported already: the heard position is
/// the last frame mixed less what the device holds queued, and a sound server's queue can grow at once (another client
/// starting on the same sink), which would move the position back with the audio still continuous. The floor is per
/// item (a queue's file, a loop's pass): the next one starts again from its beginning. A seek, a stop or a new rate
/// makes a new voice, and with it a new floor.
///
/// **Thread safety**: a value; ``Voice`` keeps one in a ``ReportedPosition``.
struct ForwardPosition: Sendable {
    private var last: (item: Int, seconds: Double)?

    /// `seconds` into `item`, heard now, or the last position reported in that item if that was further on.
    mutating func report(_ seconds: Double, item: Int) -> Double {
        let reported = last.map { $0.item == item ? max($0.seconds, seconds) : seconds } ?? seconds
        last = (item, reported)
        return reported
    }
}

/// A ``ForwardPosition`` under a lock, for the threads that ask a player its position at once (a caller, the MPRIS
/// thread, the display's ticker). The render thread never takes it.
final class ReportedPosition: Sendable {
    private let position = Mutex(ForwardPosition())

    /// See ``ForwardPosition/report(_:item:)``.
    func report(_ seconds: Double, item: Int) -> Double {
        position.withLock { $0.report(seconds, item: item) }
    }
}
