import AudioIO
import FoundationEssentials
import Synchronization

/// An ``AudioPlayer`` published as what is playing (``NowPlayingInfoCenter/connect(_:info:)``): its state, position,
/// rate and volume go out as they change, and remote controls' commands act on it, until ``cancel()`` or release.
public final class NowPlayingConnection: Sendable {
    /// How often the player's state is looked at for changes made without a remote command (a key, a seek in code).
    static let watchInterval = Duration.milliseconds(100)

    private let targets: [(RemoteCommand, RemoteCommand.Target)]
    private let watcher: Task<Void, Never>?
    private let isCancelled = Mutex(false)
    private let publisher: NowPlayingPublisher

    /// Where the position was last seen, and when: a position far from where it should have got to since is a jump.
    private struct Baseline {
        var position: TimeInterval
        var at = ContinuousClock.now
        var rate: Double
        var isPlaying: Bool
    }

    init(player: AudioPlayer, info: NowPlayingInfo, publisher: NowPlayingPublisher) {
        self.publisher = publisher
        var info = info
        info.playbackDuration = player.duration
        info.elapsedPlaybackTime = player.currentTime
        info.playbackRate = Double(player.rate)
        publisher.follow(position: { [weak player] in player?.currentTime ?? 0 })
        publisher.set(info: info)
        publisher.set(volume: Double(player.volume))
        publisher.set(playbackState: player.isPlaying ? .playing : .paused)
        // Nothing is published (no session bus): no commands can come, and no one is told of changes, so the player
        // is not looked at 10 times a second for nothing.
        guard publisher.error == nil else {
            targets = []
            watcher = nil
            return
        }

        let seen = Seen(Baseline(position: player.currentTime, rate: Double(player.rate), isPlaying: player.isPlaying))
        /// Moves the player to `time` and tells clients at once.
        let seek: @Sendable (TimeInterval) -> RemoteCommandHandlerStatus = { time in
            let target = min(max(time, 0), player.duration)
            player.currentTime = target
            seen.baseline.withLock { $0 = Baseline(position: target, rate: $0.rate, isPlaying: $0.isPlaying) }
            publisher.noteSeek(to: target)
            return .success
        }
        let play: @Sendable () -> RemoteCommandHandlerStatus = {
            seen.finished.withLock { $0 = false }
            return player.play() ? .success : .commandFailed
        }
        let commands = RemoteCommandCenter.shared
        func add(_ command: RemoteCommand, _ handler: @escaping @Sendable (RemoteCommandEvent) -> RemoteCommandHandlerStatus) -> (RemoteCommand, RemoteCommand.Target) {
            (command, command.addTarget(handler: handler))
        }
        targets = [
            add(commands.playCommand) { _ in play() },
            add(commands.pauseCommand) { _ in player.pause(); return .success },
            add(commands.togglePlayPauseCommand) { _ in
                if player.isPlaying { player.pause(); return .success }
                return play()
            },
            add(commands.stopCommand) { _ in
                player.stop()
                player.currentTime = 0
                seen.finished.withLock { $0 = true }
                publisher.set(playbackState: .stopped)
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
                player.enableRate = true
                player.rate = Float(rate)
                return .success
            },
            add(commands.changeVolumeCommand) { event in
                guard case .changeVolume(let volume) = event else { return .commandFailed }
                player.volume = Float(volume)
                return .success
            },
        ]

        let events = player.events()
        let finishes = Task {
            for await event in events {
                if case .finishedPlaying = event {
                    seen.finished.withLock { $0 = true }
                    publisher.set(playbackState: .stopped)
                }
            }
        }
        // Weakly: a cancelled connection must not keep a player its owner let go playing until the next look.
        watcher = Task.detached { [weak player] in
            defer { finishes.cancel() }
            var published = (rate: Double(player?.rate ?? 1), volume: Double(player?.volume ?? 1))
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.watchInterval)
                guard !Task.isCancelled, let player else { return }
                let (position, isPlaying, rate, volume) = (player.currentTime, player.isPlaying, Double(player.rate), Double(player.volume))
                let jumped = seen.baseline.withLock { last in
                    let since = (ContinuousClock.now - last.at) / .seconds(1)
                    let expected = last.position + (last.isPlaying ? since * last.rate : 0)
                    // A period or two of slack: the position moves by device periods.
                    let jumped = abs(position - expected) > 0.25 + (last.isPlaying ? 0.2 : 0)
                    last = Baseline(position: position, rate: rate, isPlaying: isPlaying)
                    return jumped
                }
                if jumped { publisher.noteSeek(to: position) }
                if rate != published.rate, var info = publisher.info {
                    info.playbackRate = rate
                    info.elapsedPlaybackTime = position
                    publisher.set(info: info)
                }
                if volume != published.volume { publisher.set(volume: volume) }
                published = (rate, volume)
                let hasFinished = seen.finished.withLock { $0 }
                let state: NowPlayingPlaybackState = isPlaying ? .playing : hasFinished ? .stopped : .paused
                if state != publisher.playbackState { publisher.set(playbackState: state) }
            }
        }
    }

    /// What the commands and the watcher share.
    private final class Seen: Sendable {
        let baseline: Mutex<Baseline>
        let finished = Mutex(false)
        init(_ baseline: Baseline) { self.baseline = Mutex(baseline) }
    }

    deinit { cancel() }

    /// Stops publishing the player: remote controls no longer reach it, and nothing is shown as playing.
    public func cancel() {
        let wasCancelled = isCancelled.withLock { cancelled in
            defer { cancelled = true }
            return cancelled
        }
        guard !wasCancelled else { return }
        watcher?.cancel()
        for (command, target) in targets { command.removeTarget(target) }
        publisher.follow(position: nil)
        publisher.set(info: nil)
        publisher.set(playbackState: .stopped)
    }
}
