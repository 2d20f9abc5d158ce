import FoundationEssentials
import Synchronization

/// Players started on one device time, so that they begin on the same frame, and steered as one: a ``Playback`` of
/// its own. Play, pause, a seek and a speed apply to all of them, and they stay together to the frame, as a multitrack
/// player's tracks do; what is shown of them (position, length, speed) is the first's, the lead.
///
/// ```swift
/// let voice = try AudioPlayer(contentsOf: voiceURL)
/// let music = try AudioPlayer(contentsOf: musicURL)
/// music.volume = 0.3
/// let group = PlayerGroup(players: [voice, music])
/// group.play()              // both start on the same frame
/// group.currentTime = 30    // both go on from 30 s, together
/// ```
///
/// The group finishes (``BasePlayer/Event/finishedPlaying(successfully:)``) once each player has played to its end, or
/// at once when one fails: the others are paused, as players that play together play together or not at all. Its
/// ``timeControlStatus`` changes are the group's own (playing while one plays); its other events are the lead's.
///
/// Leave ``BasePlayer/skipsSilence`` off on a group's players: each would leave out pauses of its own, and they would
/// part.
///
/// **Thread safety**: every member may be used from any thread.
public final class PlayerGroup: Playback {
    /// How far ahead of the device clock a common start is set: enough for every player to reach the render thread
    /// before its first frame is mixed. The device holds four I/O buffers written ahead of what is heard: a player
    /// that came after the start frame was written would be heard late, the others alone.
    static var startDelay: TimeInterval { max(0.1, 4 * AudioSession.shared.ioBufferDuration + 0.05) }

    /// The players, the lead first, as given.
    public let players: [AudioPlayer]

    private struct State {
        /// The players that have finished since the group last started, by index.
        var finished: Set<Int> = []
        /// The ``timeControlStatus`` last told.
        var toldStatus = BasePlayer.TimeControlStatus.paused
        var listeners = EventListeners<BasePlayer.Event>()
    }

    private let state = Mutex(State())
    private let observations = Mutex<[PlayerObservation]>([])

    /// A group of `players` (at least one), the first of them the lead. They should play on one device (their
    /// ``BasePlayer/currentDevice``): only there does one device time mean one frame.
    public init(players: [AudioPlayer]) {
        precondition(!players.isEmpty, "a group has at least one player")
        self.players = players
        let observations = players.indices.map { index in
            players[index].observe { [weak self] event in self?.player(index, did: event) }
        }
        self.observations.withLock { $0 = observations }
    }

    private var lead: AudioPlayer { players[0] }

    /// The status of the first player that failed, if one did; else the lead's.
    public var status: BasePlayer.Status {
        players.lazy.map(\.status).first { if case .failed = $0 { true } else { false } } ?? lead.status
    }

    public var isPlaying: Bool { players.contains(where: \.isPlaying) }
    /// Playing while one of them plays; else waiting while one waits (for their common start, say); else paused.
    public var timeControlStatus: BasePlayer.TimeControlStatus {
        let statuses = players.map(\.timeControlStatus)
        return statuses.contains(.playing) ? .playing : statuses.first { $0 != .paused } ?? .paused
    }
    public var playbackDuration: TimeInterval { lead.duration }
    public var rate: Float { lead.rate }
    public var currentDevice: String? { lead.currentDevice }
    public var loadedTimeRanges: [Range<TimeInterval>] { lead.loadedTimeRanges }
    public var isPlaybackBufferEmpty: Bool { players.contains(where: \.isPlaybackBufferEmpty) }

    /// The lead's position. Setting it moves every player there (each within its length) and, playing, starts them
    /// again on one device time.
    public var currentTime: TimeInterval {
        get { lead.currentTime }
        set {
            let wasPlaying = isPlaying
            if wasPlaying { players.forEach { $0.pause() } }
            for player in players { player.currentTime = min(max(newValue, 0), player.duration) }
            // A player that had ended plays again: the group ends when all have, from here.
            state.withLock { $0.finished = [] }
            if wasPlaying { _ = startTogether() }
        }
    }

    public func setRate(_ rate: Float) {
        players.forEach { $0.setRate(rate) }
    }

    /// The lead's volume; setting it sets every player's, keeping none of their differences.
    public var volume: Float {
        get { lead.volume }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    public func setVolume(_ volume: Float, fadeDuration: TimeInterval) {
        players.forEach { $0.setVolume(volume, fadeDuration: fadeDuration) }
    }

    /// Starts every player on one device time, a little ahead (one alone starts at once: it has no one to start
    /// with), from where the lead is: resumed one by one, each would start with whichever period came first.
    ///
    /// - Returns: False when a player cannot start; its ``BasePlayer/status`` says why.
    @discardableResult
    public func play() -> Bool {
        guard !isPlaying else { return true }
        state.withLock { $0.finished = [] }
        if players.count > 1 {
            // Each moved, the lead too: a paused player asked to play at a time resumes at once instead.
            let time = lead.currentTime
            for player in players { player.currentTime = min(time, player.duration) }
        }
        return startTogether()
    }

    public func pause() {
        players.forEach { $0.pause() }
    }

    /// False, with every player paused, when one cannot start: they play together or not at all.
    private func startTogether() -> Bool {
        guard players.count > 1 else { return lead.play() }
        let time = lead.deviceCurrentTime + Self.startDelay
        let started = players.map { $0.play(atTime: time) }
        guard started.allSatisfy({ $0 }) else {
            pause()
            return false
        }
        return true
    }

    /// The most channels of any player.
    public var numberOfChannels: Int { players.map(\.numberOfChannels).max() ?? 0 }

    public var isMeteringEnabled: Bool {
        get { lead.isMeteringEnabled }
        set { players.forEach { $0.isMeteringEnabled = newValue } }
    }

    public func updateMeters() {
        players.forEach { $0.updateMeters() }
    }

    /// The loudest player's peak level of `channel`, in dBFS.
    public func peakPower(forChannel channel: Int) -> Float {
        players.map { $0.peakPower(forChannel: channel) }.max() ?? Float(AudioLevels.floor)
    }

    /// The loudest player's average level of `channel`, in dBFS.
    public func averagePower(forChannel channel: Int) -> Float {
        players.map { $0.averagePower(forChannel: channel) }.max() ?? Float(AudioLevels.floor)
    }

    public func events() -> AsyncStream<BasePlayer.Event> {
        AsyncStream { continuation in
            let observation = observe { continuation.yield($0) }
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    public func observe(_ handler: @escaping @Sendable (BasePlayer.Event) -> Void) -> PlayerObservation {
        let id = state.withLock { $0.listeners.add(handler) }
        return PlayerObservation { [weak self] in self?.state.withLock { $0.listeners.remove(id) } }
    }

    /// The lead's events go on to the listeners, but its end and its time control status: the group's are told, once
    /// all have ended (or one failed), and as the group's status changes.
    private func player(_ index: Int, did event: BasePlayer.Event) {
        let told: BasePlayer.Event?
        if case .finishedPlaying(let successfully) = event {
            told = state.withLock { state in
                guard state.finished.count < players.count else { return nil }
                if !successfully {
                    // Told once: the others, paused below, do not finish.
                    state.finished = Set(players.indices)
                    return event
                }
                state.finished.insert(index)
                return state.finished.count == players.count ? event : nil
            }
            if told == .finishedPlaying(successfully: false) { pause() }
        } else if case .timeControlStatusChanged = event {
            // Read under the lock, so that two players' events on two threads tell the status they leave, in order.
            told = state.withLock { state in
                let status = timeControlStatus
                guard status != state.toldStatus else { return nil }
                state.toldStatus = status
                return .timeControlStatusChanged(status)
            }
        } else {
            told = index == 0 ? event : nil
        }
        guard let told else { return }
        for listener in state.withLock({ $0.listeners.all }) { listener(told) }
    }
}
