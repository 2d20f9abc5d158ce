import AudioIO
import NowPlaying

/// `play` as the desktop sees it: what plays published as the MPRIS player `org.mpris.MediaPlayer2.voicememo`
/// (media keys, GNOME and KDE widgets, `playerctl`), with its commands acting on it; a remote Stop ends `play` as `q`
/// does. Without a session bus nothing is published and nothing is said: playback is the same.
struct PublishedPlayback {
    private let connection: NowPlayingConnection?
    private let stop: (RemoteCommand, RemoteCommand.Target)?

    /// Publishes `player` playing `item` in `group`. Several items playing together are not published yet: the remote
    /// controls act on one player.
    init(_ item: PlayItem, player: AudioPlayer, in group: PlayerGroup, alone: Bool) {
        guard alone else {
            connection = nil
            stop = nil
            return
        }
        let center = NowPlayingInfoCenter.default
        center.playerName = "voicememo"
        connection = center.connect(player, info: NowPlayingInfo(
            identifier: item.memo?.id ?? item.url.lastPathComponent, title: item.title, assetURL: item.url,
            creationDate: item.memo?.createdAt))
        let command = RemoteCommandCenter.shared.stopCommand
        stop = (command, command.addTarget { _ in
            group.quit()
            return .success
        })
    }

    /// Stops publishing.
    func end() {
        if let (command, target) = stop { command.removeTarget(target) }
        connection?.cancel()
    }
}
