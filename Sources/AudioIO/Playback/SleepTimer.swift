import FoundationEssentials
import Synchronization
import SystemEdge

/// A podcast player's sleep timer: pauses a ``Playback`` after a time spent playing, fading it out over the last
/// ``fadeDuration`` seconds, then puts its volume back for the next listen. Paused time does not count; a pause in the
/// fade holds the volume where the fade had brought it, and playing again goes on fading from there. Only time heard
/// counts: not a pause, nor a wait for a download or a held device.
///
/// ```swift
/// let timer = SleepTimer(over: player) { print("Good night") }
/// timer.set(20 * 60)       // 20 minutes of playing
/// ```
///
/// While set, it looks at the playback once a second (four times while paused, ten in the fade); off, not at all.
///
/// **Thread safety**: every member may be used from any thread.
public final class SleepTimer: Sendable {
    /// Seconds over which the volume falls to silence before playback pauses, 10 unless given.
    public let fadeDuration: TimeInterval

    private struct State {
        /// Seconds of playing left at ``countedAt``; nil: off.
        var remaining: TimeInterval?
        /// When ``remaining`` was counted, and whether playback was playing then (the time since counts if it was).
        var countedAt = ContinuousClock.now
        var wasPlaying = false
        /// The fade under way: the volume it started from, the seconds it started over (the volume falls linearly from
        /// `from` at `span` seconds left to 0 at none), and whether a pause holds it.
        var fade: (from: Float, span: TimeInterval, isHeld: Bool)?
        /// Whether a task looks at the playback.
        var isRunning = false
        var hasEnded = false
        var isInvalidated = false

        /// ``remaining`` counted down to `now`.
        func remaining(at now: ContinuousClock.Instant) -> TimeInterval? {
            remaining.map { wasPlaying ? $0 - (now - countedAt) / .seconds(1) : $0 }
        }
    }

    private let state = Mutex(State())
    private let playback: any Playback
    private let onEnd: @Sendable () -> Void
    /// The playback's changes of playing state, each counted as it happens: a pause stops the count at once.
    private let observation = Mutex<PlayerObservation?>(nil)

    /// A timer, off, over `playback`, fading over `fadeDuration` seconds (at least 0); `onEnd` is called once it has
    /// paused playback.
    public init(over playback: any Playback, fadeDuration: TimeInterval = 10, onEnd: @escaping @Sendable () -> Void = {}) {
        self.playback = playback
        self.fadeDuration = max(fadeDuration, 0)
        self.onEnd = onEnd
        let observation = playback.observe { [weak self] event in
            if case .timeControlStatusChanged = event { self?.recount() }
        }
        self.observation.withLock { $0 = observation }
    }

    /// Seconds of playing left, nil when the timer is off.
    public var remaining: TimeInterval? {
        state.withLock { $0.remaining(at: .now).map { max($0, 0) } }
    }

    /// Whether the timer ran out and paused playback (and has not been set again since).
    public var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// Sets the timer to `seconds` of playing from now (nil: off), whether set before or not; a fade under way is
    /// undone when the new time is beyond it.
    public func set(_ seconds: TimeInterval?) {
        let isPlaying = playback.timeControlStatus == .playing
        let starts = state.withLock { state in
            state.remaining = seconds
            // Set again after it ran out: it counts afresh.
            if seconds != nil { state.hasEnded = false }
            state.countedAt = .now
            state.wasPlaying = isPlaying
            defer { state.isRunning = true }
            return !state.isRunning && !state.isInvalidated
        }
        guard starts else { return }
        // A thread of its own while set: a task on the cooperative pool woke seconds late whenever the pool's threads
        // were all busy (an app's blocking work, a test suite's), and playback was paused late, or faded unevenly.
        SystemThread.detach(name: "sleep-timer", realtime: false) { [self] in
            while let wait = step() {
                MonotonicClock.sleep(seconds: wait)
            }
        }
    }

    /// Stops looking at the playback, for good: the timer does nothing more.
    public func invalidate() {
        state.withLock { $0.isInvalidated = true }
        observation.withLock { $0?.cancel() }
    }

    /// Counts the time since the last count, if playback was playing, and whether it plays now.
    private func recount() {
        let isPlaying = playback.timeControlStatus == .playing
        state.withLock { state in
            let now = ContinuousClock.now
            state.remaining = state.remaining(at: now)
            state.countedAt = now
            state.wasPlaying = isPlaying
        }
    }

    /// One look at the playback: the time counted down, the fade started, held, resumed or undone, the end. Returns
    /// the seconds until the next look, or nil when there is none to come (the timer is off, or ended), having
    /// noted that no task looks any more.
    private func step() -> TimeInterval? {
        let isPlaying = playback.timeControlStatus == .playing
        let volume = playback.volume
        // The fade is heard this much after it is played: playback ends once its silence is heard.
        let latency = AudioSession.shared.outputLatency
        enum Action { case none, fade(over: TimeInterval), hold(Float), restore(Float), end(restoring: Float?) }
        let (action, wait): (Action, TimeInterval?) = state.withLock { state in
            let now = ContinuousClock.now
            let left = state.remaining(at: now)
            state.remaining = left
            state.countedAt = now
            state.wasPlaying = isPlaying
            let result: (Action, TimeInterval?)
            if state.isInvalidated || state.hasEnded {
                result = (.none, nil)
            } else if let left, left <= -latency {
                state.hasEnded = true
                result = (.end(restoring: state.fade?.from), nil)
                state.fade = nil
            } else if let left, left <= fadeDuration {
                // In the fade: looked at often, so that a pause holds it where it is heard.
                switch (state.fade, isPlaying) {
                case (nil, true):
                    state.fade = (volume, max(left, 0.001), false)
                    result = (.fade(over: left), 0.1)
                case (let fade?, false) where !fade.isHeld:
                    state.fade = (fade.from, fade.span, true)
                    result = (.hold(fade.from * Float(max(left, 0) / fade.span)), 0.1)
                case (let fade?, true) where fade.isHeld:
                    state.fade = (fade.from, fade.span, false)
                    result = (.fade(over: left), 0.1)
                default:
                    result = (.none, 0.1)
                }
            } else {
                // Off, or set again beyond the fade (the key): a fade under way is undone.
                let restore = state.fade.map { Action.restore($0.from) } ?? .none
                state.fade = nil
                // Paused (or not started yet), looked at sooner: playing again counts from when it is seen.
                result = (restore, left.map { isPlaying ? min($0 - fadeDuration, 1) : 0.25 })
            }
            if result.1 == nil { state.isRunning = false }
            return result
        }
        switch action {
        case .none: break
        case .fade(let seconds): playback.setVolume(0, fadeDuration: seconds)
        case .hold(let level), .restore(let level): playback.setVolume(level, fadeDuration: 0)
        case .end(let level):
            // Silent by now: paused, then back at the volume the fade started from, for the next listen.
            playback.pause()
            if let level { playback.setVolume(level, fadeDuration: 0) }
            onEnd()
        }
        return wait
    }
}
