import AudioIO
import FoundationEssentials

/// What this process is playing, published to the desktop as `MPNowPlayingInfoCenter` publishes it to the lock
/// screen: on Linux as an MPRIS 2 player on the session bus (`org.mpris.MediaPlayer2.<playerName>`), which GNOME and
/// KDE media widgets, media keys, KDE Connect and `playerctl` show and control.
///
/// ```swift
/// let center = NowPlayingInfoCenter.default
/// let connection = center.connect(player, info: NowPlayingInfo(identifier: memo.id, title: memo.title))
/// player.play()
/// // … until playback ends:
/// connection.cancel()
/// ```
///
/// The first change opens the bus connection. With no session bus (a server, a bare container) playback goes on as
/// before and ``publishingError`` says why nothing is published; nothing is retried.
///
/// **Thread safety**: every member may be used from any thread.
public final class NowPlayingInfoCenter: Sendable {
    /// The info center of this process.
    public static let `default` = NowPlayingInfoCenter()

    private var publisher: NowPlayingPublisher { .shared }

    private init() {}

    /// The last word of the bus name, e.g. `voicememo` for `org.mpris.MediaPlayer2.voicememo` (by default the
    /// program's name): set it before the first change. A second process of the same name gets
    /// `….voicememo.instance<pid>`, as MPRIS asks.
    public var playerName: String {
        get { publisher.name }
        set { publisher.name = newValue }
    }

    /// What is playing; `nil`: nothing (controls show no item).
    public var nowPlayingInfo: NowPlayingInfo? {
        get { publisher.info }
        set { publisher.set(info: newValue) }
    }

    /// Whether it plays; controls show the position moving at ``NowPlayingInfo/playbackRate`` while it does.
    public var playbackState: NowPlayingPlaybackState {
        get { publisher.playbackState }
        set { publisher.set(playbackState: newValue) }
    }

    /// The volume controls show, 0…1.
    public var volume: Double {
        get { publisher.volume }
        set { publisher.set(volume: min(max(newValue, 0), 1)) }
    }

    /// The bus name taken, once published.
    public var busName: String? { publisher.busName }

    /// Why what is playing is not published (no session bus, the name refused, the bus gone); `nil` while it is.
    public var publishingError: NowPlayingError? { publisher.error }

    /// Publishes `playback` (an ``AudioPlayer``, a ``PlayerGroup``, any ``Playback``) as what is playing, with `info`'s
    /// facts (its duration, position, rate and state taken from the playback), and lets remote controls play, pause,
    /// stop (pause back at the start), seek, skip and change its speed and volume, until the connection is cancelled or
    /// released.
    ///
    /// What the player does from then on, whoever asks for it (the app, a key, a remote), is published as it happens:
    /// its state, its rate, and each seek or loop starting over as MPRIS's `Seeked`, at once. A volume set by the app is
    /// not (the volume published is the one remotes set): a fade, such as a sleep timer's, is not the listener's
    /// volume.
    public func connect(_ playback: any Playback, info: NowPlayingInfo) -> NowPlayingConnection {
        NowPlayingConnection(player: playback, info: { _ in info }, movesThroughItems: false, publisher: publisher)
    }

    /// Publishes `player` (a ``QueuePlayer`` too) as what is playing, as ``connect(_:info:)-(any Playback,_)`` publishes
    /// an ``AudioPlayer``, with `info(item)`'s facts for the item playing, by its address (its duration, position and
    /// rate taken from the player): a new item is new metadata (MPRIS's `mpris:trackid` is `info(item).identifier`).
    /// A queue's remote next and previous move through it (``QueuePlayer/advanceToNextItem()``,
    /// ``QueuePlayer/advanceToPreviousItem()``);
    /// the connection enables ``RemoteCommandCenter/nextTrackCommand`` while an item follows the current one and
    /// ``RemoteCommandCenter/previousTrackCommand`` while one came before it, so that the ends of the queue show as
    /// MPRIS's `CanGoNext` and `CanGoPrevious` false. An empty queue shows no item.
    public func connect(_ player: Player, info: @escaping @Sendable (_ item: URL) -> NowPlayingInfo) -> NowPlayingConnection {
        NowPlayingConnection(player: player, info: { $0.map(info) }, movesThroughItems: player is QueuePlayer, publisher: publisher)
    }
}
