import FoundationEssentials
import Synchronization

/// Joins what the info center says is playing and what the command center offers into the MPRIS object, opened on
/// the first change and kept for the life of the process; hands clients' requests to the commands.
final class NowPlayingPublisher: Sendable {
    static let shared = NowPlayingPublisher()

    private struct State {
        var name: String = NowPlayingPublisher.busNameWord(ProcessInfo.processInfo.processName)
        var info: NowPlayingInfo?
        /// When `info` was set, on the monotonic clock: its elapsed time grows from then at its rate while playing.
        var infoSetAt = ContinuousClock.now
        var playbackState = NowPlayingPlaybackState.stopped
        var volume = 1.0
        /// Reads the position from a connected player instead of working it out from `info`.
        var position: (@Sendable () -> TimeInterval)?
        var server: MPRISServer?
        var error: NowPlayingError?
        var hasTriedToOpen = false
        var published = PublishedState()

        func positionNow() -> TimeInterval {
            if let position { return position() }
            guard let info else { return 0 }
            guard playbackState == .playing else { return info.elapsedPlaybackTime }
            let elapsed = info.elapsedPlaybackTime + (ContinuousClock.now - infoSetAt) / .seconds(1) * info.playbackRate
            return info.playbackDuration > 0 ? min(elapsed, info.playbackDuration) : elapsed
        }
    }

    private let state = Mutex(State())

    var name: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = Self.busNameWord(newValue) } }
    }

    var info: NowPlayingInfo? { state.withLock { $0.info } }
    var playbackState: NowPlayingPlaybackState { state.withLock { $0.playbackState } }
    var volume: Double { state.withLock { $0.volume } }
    var error: NowPlayingError? { state.withLock { $0.error ?? $0.server?.failure } }
    var busName: String? { state.withLock { $0.server?.busName } }
    var position: TimeInterval { state.withLock { $0.positionNow() } }

    /// Sets what is playing; a position that jumped from where the previous info had got to goes out as `Seeked`.
    func set(info: NowPlayingInfo?) {
        state.withLock { state in
            let expected = state.positionNow()
            let jumped = info.map { info in state.info?.identifier == info.identifier && abs(info.elapsedPlaybackTime - expected) > 0.1 } ?? false
            state.info = info
            state.infoSetAt = .now
            publish(&state)
            if jumped, let info { state.server?.seeked(to: info.elapsedPlaybackTime) }
        }
    }

    func set(playbackState: NowPlayingPlaybackState) {
        state.withLock { state in
            // The position stands where it had got to while playing.
            if state.playbackState == .playing, playbackState != .playing, state.position == nil, var info = state.info {
                info.elapsedPlaybackTime = state.positionNow()
                state.info = info
            }
            state.infoSetAt = .now
            state.playbackState = playbackState
            publish(&state)
        }
    }

    func set(volume: Double) {
        state.withLock { state in
            state.volume = volume
            publish(&state)
        }
    }

    /// Reads the position from `source` from now on (nil: from the info).
    func follow(position source: (@Sendable () -> TimeInterval)?) {
        state.withLock { $0.position = source }
    }

    /// Tells clients the position jumped to `position` seconds.
    func noteSeek(to position: TimeInterval) {
        state.withLock { $0.server?.seeked(to: position) }
    }

    func commandsChanged() {
        state.withLock { publish(&$0) }
    }

    /// Publishes the state; the first time, opens the MPRIS object (once: on failure the error stays for the owner to
    /// read, and nothing is published).
    private func publish(_ state: inout State) {
        let published = Self.published(state)
        if !state.hasTriedToOpen {
            state.hasTriedToOpen = true
            do {
                state.server = try MPRISServer(
                    name: state.name, identity: state.name, state: published,
                    requests: { request in NowPlayingPublisher.shared.handle(request) },
                    position: { NowPlayingPublisher.shared.position })
            } catch {
                state.error = error
            }
        } else if published != state.published {
            state.server?.update(published)
        }
        state.published = published
    }

    private static func published(_ state: State) -> PublishedState {
        let commands = RemoteCommandCenter.shared
        let rates = commands.changePlaybackRateCommand.isOffered ? commands.changePlaybackRateCommand.supportedPlaybackRates : []
        var published = PublishedState()
        if let info = state.info {
            published.playbackStatus = switch state.playbackState {
            case .playing: .playing
            case .paused: .paused
            case .stopped: .stopped
            }
            published.trackID = "/org/voicememo/track/" + String(info.identifier.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
            published.title = info.title
            published.artist = info.artist
            published.album = info.albumTitle
            published.artworkURL = info.artworkURL?.absoluteString
            published.url = info.assetURL?.absoluteString
            published.contentCreated = info.creationDate?.formatted(.iso8601)
            published.length = info.playbackDuration
            published.rate = info.playbackRate
        }
        published.minimumRate = min(rates.min() ?? 1, published.rate)
        published.maximumRate = max(rates.max() ?? 1, published.rate)
        published.volume = state.volume
        let hasItem = state.info != nil
        published.canPlay = hasItem && (commands.playCommand.isOffered || commands.togglePlayPauseCommand.isOffered)
        published.canPause = hasItem && (commands.pauseCommand.isOffered || commands.togglePlayPauseCommand.isOffered)
        // A live stream plays as it comes: nowhere to seek to.
        published.canSeek = hasItem && published.length.isFinite && (commands.changePlaybackPositionCommand.isOffered || commands.skipForwardCommand.isOffered)
        published.canGoNext = commands.nextTrackCommand.isOffered
        published.canGoPrevious = commands.previousTrackCommand.isOffered
        return published
    }

    /// A client's request, on the bus's thread: to the command that does it.
    private func handle(_ request: ClientRequest) {
        let commands = RemoteCommandCenter.shared
        switch request {
        case .play: if commands.playCommand.isOffered { commands.playCommand.send(.play) } else { commands.togglePlayPauseCommand.send(.togglePlayPause) }
        case .pause: if commands.pauseCommand.isOffered { commands.pauseCommand.send(.pause) } else { commands.togglePlayPauseCommand.send(.togglePlayPause) }
        case .playPause:
            if commands.togglePlayPauseCommand.isOffered {
                commands.togglePlayPauseCommand.send(.togglePlayPause)
            } else if playbackState == .playing {
                commands.pauseCommand.send(.pause)
            } else {
                commands.playCommand.send(.play)
            }
        case .stop: commands.stopCommand.send(.stop)
        case .next: commands.nextTrackCommand.send(.nextTrack)
        case .previous: commands.previousTrackCommand.send(.previousTrack)
        case .seek(let offset):
            let skip = offset >= 0 ? commands.skipForwardCommand : commands.skipBackwardCommand
            if skip.isOffered {
                skip.send(offset >= 0 ? .skipForward(interval: offset) : .skipBackward(interval: -offset))
            } else {
                let duration = info?.playbackDuration ?? 0
                let target = max(0, position + offset)
                // MPRIS: a seek past the end goes to the next track.
                if duration > 0, target > duration {
                    commands.nextTrackCommand.send(.nextTrack)
                } else {
                    commands.changePlaybackPositionCommand.send(.changePlaybackPosition(target))
                }
            }
        case .setPosition(let position): commands.changePlaybackPositionCommand.send(.changePlaybackPosition(position))
        case .setRate(let rate):
            // MPRIS: a rate of 0 is a pause; one out of range is not applied.
            if rate == 0 {
                handle(.pause)
            } else {
                let rates = commands.changePlaybackRateCommand.supportedPlaybackRates
                if let low = rates.min(), let high = rates.max(), (low...high).contains(rate) {
                    commands.changePlaybackRateCommand.send(.changePlaybackRate(rate))
                }
            }
        case .setVolume(let volume): commands.changeVolumeCommand.send(.changeVolume(min(max(volume, 0), 1)))
        }
    }

    /// `name` as the last word of a D-Bus name: ASCII letters, digits and `_`, not starting with a digit.
    private static func busNameWord(_ name: String) -> String {
        let word = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        return word.first?.isNumber ?? true ? "_" + word : word
    }
}
