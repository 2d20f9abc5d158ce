/// The commands remote controls may send to this process, as `MPRemoteCommandCenter`: media keys, headset buttons,
/// GNOME and KDE media widgets, KDE Connect and `playerctl`, which reach it through MPRIS on the session bus.
///
/// ```swift
/// let commands = RemoteCommandCenter.shared
/// commands.togglePlayPauseCommand.addTarget { _ in player.isPlaying ? player.pause() : _ = player.play(); return .success }
/// commands.changePlaybackPositionCommand.addTarget { event in
///     guard case .changePlaybackPosition(let time) = event else { return .commandFailed }
///     player.currentTime = time
///     return .success
/// }
/// ```
///
/// ``NowPlayingInfoCenter/connect(_:info:)`` adds the targets a player needs by itself.
public final class RemoteCommandCenter: Sendable {
    /// The command center of this process.
    public static let shared = RemoteCommandCenter()

    public let playCommand: RemoteCommand
    public let pauseCommand: RemoteCommand
    public let togglePlayPauseCommand: RemoteCommand
    public let stopCommand: RemoteCommand
    public let nextTrackCommand: RemoteCommand
    public let previousTrackCommand: RemoteCommand
    /// MPRIS's `Seek` with a positive offset, with that offset as the interval.
    public let skipForwardCommand: SkipIntervalCommand
    /// MPRIS's `Seek` with a negative offset.
    public let skipBackwardCommand: SkipIntervalCommand
    /// MPRIS's `SetPosition`, e.g. `playerctl position 30`.
    public let changePlaybackPositionCommand: RemoteCommand
    /// A write of MPRIS's `Rate`.
    public let changePlaybackRateCommand: ChangePlaybackRateCommand
    /// A write of MPRIS's `Volume` (no `MPRemoteCommandCenter` counterpart: desktops set a player's volume).
    public let changeVolumeCommand: RemoteCommand

    private init() {
        let changed: @Sendable () -> Void = { NowPlayingPublisher.shared.commandsChanged() }
        playCommand = RemoteCommand(changed: changed)
        pauseCommand = RemoteCommand(changed: changed)
        togglePlayPauseCommand = RemoteCommand(changed: changed)
        stopCommand = RemoteCommand(changed: changed)
        nextTrackCommand = RemoteCommand(changed: changed)
        previousTrackCommand = RemoteCommand(changed: changed)
        skipForwardCommand = SkipIntervalCommand(changed: changed)
        skipBackwardCommand = SkipIntervalCommand(changed: changed)
        changePlaybackPositionCommand = RemoteCommand(changed: changed)
        changePlaybackRateCommand = ChangePlaybackRateCommand(changed: changed)
        changeVolumeCommand = RemoteCommand(changed: changed)
    }
}
