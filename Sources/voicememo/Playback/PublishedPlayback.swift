import AudioIO
import FoundationEssentials
import NowPlaying

/// `play` as the desktop sees it: what plays published as the MPRIS player `org.mpris.MediaPlayer2.voicememo` (media
/// keys, GNOME and KDE widgets, `playerctl`), with its commands acting on it; a remote Stop ends `play` as `q` does.
/// Without a session bus nothing is published and nothing is said: playback is the same.
///
/// A memo alone and memos in turn are connected to the info center as they are (``NowPlayingInfoCenter``'s one call):
/// memos in turn one item each, with next and previous. Memos played together are one item, titled as the status line
/// titles them (`A + B`), as long as the first, whose position it shows: the remote controls pause, play, seek and
/// change the speed of all of them at once, and they stay together to the frame.
struct PublishedPlayback {
    private let connection: NowPlayingConnection?
    private let targets: [(RemoteCommand, RemoteCommand.Target)]
    private let follower: Task<Void, Never>?

    /// Publishes memos played together, or one alone; a remote Stop ends `run`.
    init(_ group: PlayerGroup, ending run: PlaybackRun) {
        let stop = Self.stop(ending: run)
        if group.players.count == 1 {
            connection = Self.center.connect(group.players[0], info: Self.info(group.items[0]))
            targets = [stop]
            follower = nil
        } else {
            connection = nil
            let (targets, follower) = Self.publish(together: group)
            self.targets = targets + [stop]
            self.follower = follower
        }
    }

    /// Publishes memos played in turn; a remote Stop ends `run`.
    init(_ queue: PlayQueue, ending run: PlaybackRun) {
        connection = Self.center.connect(queue.queue) { url in
            queue.item(playing: url).map(Self.info) ?? NowPlayingInfo(identifier: url.lastPathComponent, title: url.lastPathComponent)
        }
        targets = [Self.stop(ending: run)]
        follower = nil
    }

    /// The info center, publishing as `voicememo`, with the speeds `play` takes (MPRIS's `MinimumRate`, `MaximumRate`).
    private static var center: NowPlayingInfoCenter {
        let center = NowPlayingInfoCenter.default
        center.playerName = "voicememo"
        RemoteCommandCenter.shared.changePlaybackRateCommand.supportedPlaybackRates = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4]
        return center
    }

    /// A remote Stop ending `run` as `q` does.
    private static func stop(ending run: PlaybackRun) -> (RemoteCommand, RemoteCommand.Target) {
        let command = RemoteCommandCenter.shared.stopCommand
        return (command, command.addTarget { _ in
            run.quit()
            return .success
        })
    }

    /// What the desktop shows of `item`: its title, length, date and file.
    private static func info(_ item: PlayItem) -> NowPlayingInfo {
        NowPlayingInfo(
            identifier: item.memo?.id ?? item.url.lastPathComponent, title: item.title, assetURL: item.url,
            creationDate: item.memo?.createdAt)
    }

    /// Memos played together, published by hand through `center` (no player is the whole of them): the item and its
    /// state follow the first player's events, and the remote controls act on the group.
    private static func publish(together group: PlayerGroup) -> ([(RemoteCommand, RemoteCommand.Target)], Task<Void, Never>) {
        let center = Self.center
        let commands = RemoteCommandCenter.shared
        let lead = group.players[0]
        let identifier = group.items.map { $0.memo?.id ?? $0.url.lastPathComponent }.joined(separator: "_")
        @Sendable func show() {
            center.nowPlayingInfo = NowPlayingInfo(
                identifier: identifier, title: group.title, playbackDuration: lead.duration, elapsedPlaybackTime: lead.currentTime,
                playbackRate: Double(lead.rate), creationDate: group.items[0].memo?.createdAt)
            // Waiting for their common start is not playing yet: the position would run ahead.
            center.playbackState = lead.timeControlStatus == .playing ? .playing : .paused
        }
        let events = lead.events()
        show()
        let follower = Task {
            for await event in events {
                switch event {
                case .timeControlStatusChanged, .rateChanged, .timeJumped: show()
                case .finishedPlaying: center.playbackState = .stopped
                default: break
                }
            }
        }
        func add(_ command: RemoteCommand, _ handler: @escaping @Sendable (RemoteCommandEvent) -> RemoteCommandHandlerStatus) -> (RemoteCommand, RemoteCommand.Target) {
            (command, command.addTarget(handler: handler))
        }
        let targets = [
            add(commands.playCommand) { _ in group.play() ? .success : .commandFailed },
            add(commands.pauseCommand) { _ in group.pause(); return .success },
            add(commands.togglePlayPauseCommand) { _ in
                if group.isPlaying { group.pause(); return .success }
                return group.play() ? .success : .commandFailed
            },
            add(commands.changePlaybackPositionCommand) { event in
                guard case .changePlaybackPosition(let time) = event else { return .commandFailed }
                group.seek(to: time)
                return .success
            },
            add(commands.skipForwardCommand) { event in
                guard case .skipForward(let interval) = event else { return .commandFailed }
                group.skip(by: interval)
                return .success
            },
            add(commands.skipBackwardCommand) { event in
                guard case .skipBackward(let interval) = event else { return .commandFailed }
                group.skip(by: -interval)
                return .success
            },
            add(commands.changePlaybackRateCommand) { event in
                guard case .changePlaybackRate(let rate) = event else { return .commandFailed }
                group.setRate(Float(rate))
                return .success
            },
        ]
        return (targets, follower)
    }

    /// Stops publishing.
    func end() {
        for (command, target) in targets { command.removeTarget(target) }
        follower?.cancel()
        connection?.cancel()
        if connection == nil { NowPlayingInfoCenter.default.nowPlayingInfo = nil }
    }
}
