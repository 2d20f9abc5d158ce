import AudioIO
import FoundationEssentials
import Synchronization

/// `play --sleep` and the `s` key: ends playback after a time spent playing, fading it out over the last
/// ``fadeDuration`` seconds, as a podcast player's sleep timer does. Paused time does not count; a pause in the fade
/// holds the volume where the fade had brought it, and playing again goes on fading from there.
///
/// While set, it looks at the playback once a second (four times while paused, ten in the fade); off, not at all.
///
/// **Thread safety**: every member may be used from any thread.
final class SleepTimer: Sendable {
    /// Seconds over which the volume falls to silence before playback ends.
    static let fadeDuration: TimeInterval = 10
    /// What the `s` key goes through from off: 15, 30 and 60 minutes, then off again.
    static let choices: [TimeInterval] = [15 * 60, 30 * 60, 60 * 60]

    private struct State {
        /// Seconds of playing left at ``countedAt``; nil: off.
        var remaining: TimeInterval?
        /// When ``remaining`` was counted, and whether playback was playing then (the time since counts if it was).
        var countedAt = ContinuousClock.now
        var wasPlaying = false
        /// The fade under way: the volume it started from, and whether a pause holds it.
        var fade: (from: Float, isHeld: Bool)?
        /// Whether a task looks at the playback.
        var isRunning = false
        var hasEnded = false
        var isStopped = false

        /// ``remaining`` counted down to `now`.
        func remaining(at now: ContinuousClock.Instant) -> TimeInterval? {
            remaining.map { wasPlaying ? $0 - (now - countedAt) / .seconds(1) : $0 }
        }
    }

    private let state = Mutex(State())
    private let playback: any Playback
    private let end: @Sendable () -> Void

    /// A timer, off, over `playback`; `end` ends playback when it runs out.
    init(over playback: any Playback, end: @escaping @Sendable () -> Void) {
        self.playback = playback
        self.end = end
    }

    /// Seconds of playing left, nil when the timer is off.
    var remaining: TimeInterval? {
        state.withLock { $0.remaining(at: .now).map { max($0, 0) } }
    }

    /// Whether the timer ended playback.
    var hasEnded: Bool { state.withLock { $0.hasEnded } }

    /// Sets the timer to `seconds` of playing (nil: off).
    func set(_ seconds: TimeInterval?) {
        change { _ in seconds }
    }

    /// The `s` key: off → 15 min → 30 → 60 → off. A timer set otherwise (`--sleep 20m`) goes to the next choice above
    /// what is left, or off.
    func cycle() {
        change { left in left.map { left in Self.choices.first { $0 > left + 1 } } ?? Self.choices.first }
    }

    /// Stops looking at the playback, for good.
    func stop() {
        state.withLock { $0.isStopped = true }
    }

    /// Sets the time left to what `newValue` makes of the time left now, and starts looking at the playback.
    private func change(_ newValue: (TimeInterval?) -> TimeInterval?) {
        let isPlaying = playback.isPlaying
        let starts = state.withLock { state in
            let now = ContinuousClock.now
            state.remaining = newValue(state.remaining(at: now))
            state.countedAt = now
            state.wasPlaying = isPlaying
            defer { state.isRunning = true }
            return !state.isRunning && !state.isStopped
        }
        guard starts else { return }
        Task { [self] in
            while let wait = step() {
                try? await Task.sleep(for: .seconds(wait))
            }
        }
    }

    /// One look at the playback: the time counted down, the fade started, held, resumed or undone, the end. Returns
    /// the seconds until the next look, or nil when there is none to come (the timer is off, or ended), having
    /// noted that no task looks any more.
    private func step() -> TimeInterval? {
        let isPlaying = playback.isPlaying
        let volume = playback.volume
        // The fade is heard this much after it is played: playback ends once its silence is heard.
        let latency = AudioSession.shared.outputLatency
        enum Action { case none, fade(over: TimeInterval), hold(Float), restore(Float), end }
        let (action, wait): (Action, TimeInterval?) = state.withLock { state in
            let now = ContinuousClock.now
            let left = state.remaining(at: now)
            state.remaining = left
            state.countedAt = now
            state.wasPlaying = isPlaying
            let result: (Action, TimeInterval?)
            if state.isStopped || state.hasEnded {
                result = (.none, nil)
            } else if let left, left <= -latency {
                state.hasEnded = true
                result = (.end, nil)
            } else if let left, left <= Self.fadeDuration {
                // In the fade: looked at often, so that a pause holds it where it is heard.
                switch (state.fade, isPlaying) {
                case (nil, true):
                    state.fade = (volume, false)
                    result = (.fade(over: left), 0.1)
                case (let fade?, false) where !fade.isHeld:
                    state.fade = (fade.from, true)
                    result = (.hold(fade.from * Float(left / Self.fadeDuration)), 0.1)
                case (let fade?, true) where fade.isHeld:
                    state.fade = (fade.from, false)
                    result = (.fade(over: left), 0.1)
                default:
                    result = (.none, 0.1)
                }
            } else {
                // Off, or set again beyond the fade (the key): a fade under way is undone.
                let restore = state.fade.map { Action.restore($0.from) } ?? .none
                state.fade = nil
                // Paused (or not started yet), looked at sooner: playing again counts from when it is seen.
                result = (restore, left.map { isPlaying ? min($0 - Self.fadeDuration, 1) : 0.25 })
            }
            if result.1 == nil { state.isRunning = false }
            return result
        }
        switch action {
        case .none: break
        case .fade(let seconds): playback.setVolume(0, fadeDuration: seconds)
        case .hold(let level), .restore(let level): playback.setVolume(level, fadeDuration: 0)
        case .end: end()
        }
        return wait
    }
}
