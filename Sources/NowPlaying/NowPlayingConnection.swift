import AudioIO
import FoundationEssentials
import Synchronization

/// A playback published as what is playing (``NowPlayingInfoCenter/connect(_:info:)-(any Playback,_)``): its state,
/// position, rate and item go out as they change, and remote controls' commands act on it, until ``cancel()`` or
/// release.
///
/// Nothing is polled: the connection hears the player's events as they happen (a seek, a pause, a rate or an item
/// changed, the end), on the thread where they happen, and publishes what they changed; the position is read from the
/// player's clock whenever a client asks for it.
public final class NowPlayingConnection: Sendable {
    private let targets: [(RemoteCommand, RemoteCommand.Target)]
    private let observation: PlayerObservation?
    private let isCancelled = Mutex(false)
    private let publisher: NowPlayingPublisher
    private let follower: Follower
    /// Whether the connection steers the next and previous commands' ``RemoteCommand/isEnabled`` (a queue's).
    private let movesThroughItems: Bool

    /// Publishes `player`, with `info(item)` for the item it plays (nil: nothing to show).
    init(player: any Playback, info: @escaping @Sendable (URL?) -> NowPlayingInfo?, movesThroughItems: Bool, publisher: NowPlayingPublisher) {
        self.publisher = publisher
        self.movesThroughItems = movesThroughItems
        let follower = Follower(player: player, info: info, movesThroughItems: movesThroughItems, publisher: publisher)
        self.follower = follower
        publisher.follow(position: { [weak player] in player?.currentTime ?? 0 })
        follower.update(.itemChanged)
        publisher.set(volume: Double(player.volume))
        // Nothing is published (no session bus): no commands can come, and no one is told of changes, so the player is
        // not listened to for nothing.
        guard publisher.error == nil else {
            targets = []
            observation = nil
            return
        }
        observation = player.observeChanges { [weak follower] change in follower?.update(change) }

        let seek: @Sendable (TimeInterval) -> RemoteCommandHandlerStatus = { time in
            player.currentTime = min(max(time, 0), player.playbackDuration)
            return .success
        }
        let commands = RemoteCommandCenter.shared
        func add(_ command: RemoteCommand, _ handler: @escaping @Sendable (RemoteCommandEvent) -> RemoteCommandHandlerStatus) -> (RemoteCommand, RemoteCommand.Target) {
            (command, command.addTarget(handler: handler))
        }
        var targets = [
            add(commands.playCommand) { _ in player.play() ? .success : .commandFailed },
            add(commands.pauseCommand) { _ in player.pause(); return .success },
            add(commands.togglePlayPauseCommand) { _ in
                if player.isPlaying { player.pause(); return .success }
                return player.play() ? .success : .commandFailed
            },
            add(commands.stopCommand) { [weak follower] _ in
                player.stopForRemote()
                follower?.update(.finished)
                return .success
            },
            add(commands.skipForwardCommand) { event in
                guard case .skipForward(let interval) = event else { return .commandFailed }
                return seek(player.currentTime + interval)
            },
            add(commands.skipBackwardCommand) { event in
                guard case .skipBackward(let interval) = event else { return .commandFailed }
                return seek(player.currentTime - interval)
            },
            add(commands.changePlaybackPositionCommand) { event in
                guard case .changePlaybackPosition(let time) = event else { return .commandFailed }
                return seek(time)
            },
            add(commands.changePlaybackRateCommand) { event in
                guard case .changePlaybackRate(let rate) = event else { return .commandFailed }
                player.setRate(Float(rate))
                return .success
            },
            add(commands.changeVolumeCommand) { event in
                guard case .changeVolume(let volume) = event else { return .commandFailed }
                player.volume = Float(volume)
                publisher.set(volume: Double(player.volume))
                return .success
            },
        ]
        if movesThroughItems {
            targets += [
                add(commands.nextTrackCommand) { _ in
                    guard player.hasNextItem else { return .noSuchContent }
                    player.skipToNextItem()
                    return .success
                },
                add(commands.previousTrackCommand) { _ in
                    guard player.hasPreviousItem else { return .noSuchContent }
                    player.skipToPreviousItem()
                    return .success
                },
            ]
            follower.update(.other)
        }
        self.targets = targets
    }

    deinit { cancel() }

    /// Stops publishing the player: remote controls no longer reach it, and nothing is shown as playing.
    public func cancel() {
        let wasCancelled = isCancelled.withLock { cancelled in
            defer { cancelled = true }
            return cancelled
        }
        guard !wasCancelled else { return }
        observation?.cancel()
        for (command, target) in targets { command.removeTarget(target) }
        if movesThroughItems {
            RemoteCommandCenter.shared.nextTrackCommand.isEnabled = true
            RemoteCommandCenter.shared.previousTrackCommand.isEnabled = true
        }
        publisher.follow(position: nil)
        publisher.set(info: nil)
        publisher.set(playbackState: .stopped)
    }
}

/// Publishes what a connected player's changes change, one change at a time (they come from several threads: the
/// player's callers, the engine's event thread, the bus's), reading the player's state afresh each time rather than
/// trusting the order in which they arrive.
private final class Follower: Sendable {
    private struct Published {
        /// The info last published, its elapsed time aside.
        var info: NowPlayingInfo?
        /// Playback ran to its end (or a remote stopped it) and has not started again: shown as stopped.
        var hasFinished = false
    }

    private weak let player: (any Playback)?
    private let info: @Sendable (URL?) -> NowPlayingInfo?
    private let movesThroughItems: Bool
    private let publisher: NowPlayingPublisher
    private let published = Mutex(Published())

    init(player: any Playback, info: @escaping @Sendable (URL?) -> NowPlayingInfo?, movesThroughItems: Bool, publisher: NowPlayingPublisher) {
        self.player = player
        self.info = info
        self.movesThroughItems = movesThroughItems
        self.publisher = publisher
    }

    func update(_ change: PlayerChange) {
        guard let player else { return }
        published.withLock { published in
            let isPlaying = player.isPlaying
            if change == .finished { published.hasFinished = true }
            if isPlaying { published.hasFinished = false }
            var info = self.info(player.item)
            info?.playbackDuration = player.playbackDuration
            // A live stream's title is what its station says plays now.
            if let title = (player as? BasePlayer)?.timedMetadata?.title, !title.isEmpty { info?.title = title }
            info?.playbackRate = Double(player.rate)
            let position = player.currentTime
            if info != published.info || change == .itemChanged {
                published.info = info
                info?.elapsedPlaybackTime = position
                publisher.set(info: info)
            }
            let state: NowPlayingPlaybackState = isPlaying ? .playing : published.hasFinished ? .stopped : .paused
            if state != publisher.playbackState { publisher.set(playbackState: state) }
            // A new item starts at a position of its own: clients that count from the last Seeked hear it, also when the
            // track id stays (a file queued twice).
            if change == .jumped || change == .itemChanged && published.info != nil { publisher.noteSeek(to: position) }
            if movesThroughItems {
                let commands = RemoteCommandCenter.shared
                if commands.nextTrackCommand.isEnabled != player.hasNextItem { commands.nextTrackCommand.isEnabled = player.hasNextItem }
                if commands.previousTrackCommand.isEnabled != player.hasPreviousItem {
                    commands.previousTrackCommand.isEnabled = player.hasPreviousItem
                }
            }
        }
    }
}
