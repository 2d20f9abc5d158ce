import Synchronization

/// The time line of a live HLS playlist, as `AVPlayerItem` has one: 0 is the start of the first segment of the window
/// first read; the time counts on from there through every segment the playlist lists later (by their `#EXTINF`
/// durations), so playing starts at the live edge some seconds in, and the window (``window``) moves on along it.
/// Where the frames decoded lie on it, their timestamps say: the first frame decoded is the start of the segment
/// playing started at, and the stream's timestamps run on from there (segments skipped in a pause, or a playlist
/// opened again to seek, come with their own).
///
/// One per item: the files opened of it (a player opens it again to seek or resume) share it. Any thread.
final class LiveTimeline: Sendable {
    private struct State {
        /// Where each segment listed starts, in seconds, by its media sequence number; from the window last read on.
        var starts: [Int64: Double] = [:]
        /// The window last read.
        var window: PlaylistWindow?
        /// Seconds on the time line less seconds of the stream's timestamps, from the first frame decoded.
        var offset: Double?
    }

    private let state = Mutex(State())

    /// Places `window`, a playlist just read, on the time line: after the windows before it, by a segment they share,
    /// else (a window that moved past all of them, read after a long pause) as many segments on as its sequence
    /// numbers say, each as long as its own segments on average.
    func read(_ window: PlaylistWindow) {
        state.withLock { state in
            let first = window.firstSequence
            var start: Double
            if let shared = (0..<window.durations.count).first(where: { state.starts[first + Int64($0)] != nil }) {
                start = state.starts[first + Int64(shared)]! - window.durations[..<shared].reduce(0, +)
            } else if let last = state.window, let lastStart = state.starts[last.endSequence - 1] {
                let average = window.durations.reduce(0, +) / Double(window.durations.count)
                start = lastStart + last.durations.last! + Double(max(first - last.endSequence, 0)) * average
            } else {
                start = 0
            }
            state.starts = state.starts.filter { $0.key >= first }
            for (index, duration) in window.durations.enumerated() {
                state.starts[first + Int64(index)] = start
                start += duration
            }
            state.window = window
        }
    }

    /// The span of the segments the playlist listed when last read, in seconds on the time line; nil before a read.
    var window: Range<Double>? {
        state.withLock { state in
            guard let window = state.window, let start = state.starts[window.firstSequence] else { return nil }
            return start..<(start + window.durations.reduce(0, +))
        }
    }

    /// Where a seek to `time` seconds lands in `window` (read last): the segment to open the playlist at and the time
    /// in it. Inside the window, at `time`; before it, at its start; at or past its end, at the live edge, where
    /// playing a live playlist starts (``PlaylistWindow/liveEdgeIndex``).
    func landing(for time: Double, in window: PlaylistWindow) -> (segment: Int, time: Double) {
        state.withLock { state in
            let starts = (0..<window.durations.count).map { state.starts[window.firstSequence + Int64($0)] ?? 0 }
            let end = starts.last! + window.durations.last!
            if time < starts[0] { return (0, starts[0]) }
            if time >= end { return (window.liveEdgeIndex, starts[window.liveEdgeIndex]) }
            return (starts.lastIndex { $0 <= time } ?? 0, time)
        }
    }

    /// The time of a frame whose timestamp is `seconds` of the stream; nil before a frame has been placed (see
    /// ``place(timestamp:atSequence:)``).
    func time(ofTimestamp seconds: Double) -> Double? {
        state.withLock { state in state.offset.map { seconds + $0 } }
    }

    /// Takes the first frame decoded, whose timestamp is `seconds`, for the start of the segment numbered `sequence`,
    /// unless a frame was placed before (by an earlier file of the same item).
    func place(timestamp seconds: Double, atSequence sequence: Int64) {
        state.withLock { state in
            guard state.offset == nil, let start = state.starts[sequence] else { return }
            state.offset = start - seconds
        }
    }
}
