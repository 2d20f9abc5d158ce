import AudioIO
import FoundationEssentials
import Synchronization

/// Memos played together (`play --together`), or one alone: players started on one device time, so that they begin
/// on the same frame, steered as one and waited for together. The first is the lead: its position and length are
/// what the status line and the remote controls show.
final class PlayerGroup: Playback {
    /// How far ahead of the device clock a common start is set: enough for every player to reach the render thread
    /// before its first frame is mixed. The device holds four I/O buffers written ahead of what is heard (half a second
    /// with `play`'s): a player that came after the start frame was written would be heard late, the others alone.
    static var startDelay: TimeInterval { max(0.1, 4 * AudioSession.shared.ioBufferDuration + 0.05) }

    let items: [PlayItem]
    let players: [AudioPlayer]
    private let finished = Mutex(0)

    /// `players[i]` plays `items[i]`.
    init(items: [PlayItem], players: [AudioPlayer]) {
        self.items = items
        self.players = players
    }

    private var lead: AudioPlayer { players[0] }

    var title: String { items.map(\.title).joined(separator: " + ") }
    var place: (number: Int, count: Int)? { nil }
    var isPlaying: Bool { players.contains(where: \.isPlaying) }
    var currentTime: TimeInterval { lead.currentTime }
    var duration: TimeInterval { lead.duration }
    var rate: Float { lead.rate }
    var volume: Float { lead.volume }
    var devices: Set<String> { Set(players.map { $0.currentDevice ?? "default" }) }
    var loadedTimeRanges: [Range<TimeInterval>]? { items[0].isRemote ? lead.loadedTimeRanges : nil }
    var isBuffering: Bool { players.contains(where: \.isPlaybackBufferEmpty) }
    var item: PlayItem? { items.first }
    var markerTimes: [TimeInterval] { items[0].markerTimes }
    var skipsSilence: Bool { lead.skipsSilence }
    var skippedSilenceDuration: TimeInterval { lead.skippedSilenceDuration }

    func start(reporting report: @escaping @Sendable (PlaybackOutcome) -> Void) throws {
        for player in players {
            let events = player.events()
            Task { [self] in
                for await event in events {
                    guard case .finishedPlaying(let successfully) = event else { continue }
                    if !successfully { return report(.failed(player.status)) }
                    if finished.withLock({ $0 += 1; return $0 }) == players.count { report(.finished) }
                    return
                }
            }
        }
        // One player whose device another program holds waits for it: the session starts it once it is free.
        guard startTogether() || players.count == 1 && lead.status.isWaitingForDevice else {
            throw AudioPlayerFailure(status: players.first { !$0.isPlaying }?.status ?? lead.status)
        }
    }

    /// Starts every player: one alone at once (it has no one to start with), several on one device time
    /// ``startDelay`` ahead. False when one cannot start.
    private func startTogether() -> Bool {
        guard players.count > 1 else { return lead.play() }
        let time = lead.deviceCurrentTime + Self.startDelay
        return players.allSatisfy { $0.play(atTime: time) }
    }

    func stop() {
        players.forEach { $0.stop() }
    }

    func play() -> Bool {
        guard players.count > 1 else { return lead.play() }
        guard !isPlaying else { return true }
        // Resumed one by one, each would start with whichever period came first (the first one wakes the device):
        // they start again together instead, from where the lead was paused.
        let time = lead.currentTime
        for player in players { player.currentTime = min(time, player.duration) }
        return startTogether()
    }

    func pause() {
        players.forEach { $0.pause() }
    }

    /// Moves every player to `time` (each within its length) and, playing, starts them again on one device time: they
    /// stay together to the frame.
    func seek(to time: TimeInterval) {
        let wasPlaying = isPlaying
        if wasPlaying, players.count > 1 { pause() }
        for player in players { player.currentTime = min(max(time, 0), player.duration) }
        if wasPlaying, players.count > 1 { _ = startTogether() }
    }

    func setRate(_ rate: Float) {
        for player in players {
            player.enableRate = true
            player.rate = rate
        }
    }

    func setVolume(_ volume: Float, fadeDuration: TimeInterval) {
        players.forEach { $0.setVolume(volume, fadeDuration: fadeDuration) }
    }

    /// For one player alone: several started together would each leave out pauses of their own, and be together no
    /// more.
    func setSkipsSilence(_ skips: Bool) {
        if players.count == 1 { lead.skipsSilence = skips }
    }

    func next() {}
    func previous() {}

    /// Per channel of the memos, the loudest player's levels since the last reading.
    func levels() -> AudioLevels {
        for player in players { player.updateMeters() }
        func loudest(_ level: (AudioPlayer) -> Float) -> Double {
            Double(players.map(level).max() ?? Float(AudioLevels.floor))
        }
        let channels = 0..<(players.map(\.numberOfChannels).max() ?? 1)
        return AudioLevels(
            peak: channels.map { channel in loudest { $0.peakPower(forChannel: channel) } },
            average: channels.map { channel in loudest { $0.averagePower(forChannel: channel) } })
    }
}
