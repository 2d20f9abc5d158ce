import Synchronization

/// The marker the `m` key dropped last, for the status line to show for a moment.
///
/// **Thread safety**: set by the task that reads the keys, read by the loop that draws.
final class MarkerFlash: Sendable {
    /// Seconds the status line shows a new marker.
    static let duration: Duration = .seconds(1.5)

    private let last = Mutex<(number: Int, at: ContinuousClock.Instant)?>(nil)

    /// Marker `number` was dropped just now.
    func dropped(_ number: Int) {
        last.withLock { $0 = (number, .now) }
    }

    /// The number of the marker dropped within ``duration``, if one was.
    var recent: Int? {
        last.withLock { last in
            guard let last, ContinuousClock.now - last.at < Self.duration else { return nil }
            return last.number
        }
    }
}
