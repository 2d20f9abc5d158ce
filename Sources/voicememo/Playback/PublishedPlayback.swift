import AudioIO
import FoundationEssentials
import NowPlaying

/// `play` as the desktop sees it: what plays published as the MPRIS player `org.mpris.MediaPlayer2.voicememo` (media
/// keys, GNOME and KDE widgets, `playerctl`), with its commands acting on it; a remote Stop ends `play` as `q` does.
/// Without a session bus nothing is published and nothing is said: playback is the same.
///
/// What plays is connected to the info center as it is (``NowPlayingInfoCenter``'s one call): memos in turn one item
/// each, with next and previous; memos played together one item, titled as the status line titles them (`A + B`), as
/// long as the first, whose position it shows — the remote controls pause, play, seek and change the speed of all of
/// them at once, and they stay together to the frame.
struct PublishedPlayback {
    private let connection: NowPlayingConnection
    private let stop: (RemoteCommand, RemoteCommand.Target)

    /// Publishes `memos`; a remote Stop ends `run`.
    init(_ memos: PlayedMemos, ending run: PlaybackRun) {
        let center = NowPlayingInfoCenter.default
        center.playerName = "voicememo"
        RemoteCommandCenter.shared.changePlaybackRateCommand.supportedPlaybackRates = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4]
        if let queue = memos.inTurn {
            connection = center.connect(queue.queue) { url in
                queue.item(playing: url).map(Self.info) ?? NowPlayingInfo(identifier: url.lastPathComponent, title: url.lastPathComponent)
            }
        } else if memos.items.count == 1 {
            connection = center.connect(memos.playback, info: Self.info(memos.items[0]))
        } else {
            // Memos together are one item of no one file.
            let info = NowPlayingInfo(
                identifier: memos.items.map { $0.memo?.id ?? $0.url.lastPathComponent }.joined(separator: "_"), title: memos.title,
                creationDate: memos.items[0].memo?.createdAt)
            connection = center.connect(memos.playback, info: info)
        }
        let command = RemoteCommandCenter.shared.stopCommand
        stop = (command, command.addTarget { _ in
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

    /// Stops publishing.
    func end() {
        stop.0.removeTarget(stop.1)
        connection.cancel()
    }
}
