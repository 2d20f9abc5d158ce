import AudioIO
import FoundationEssentials

/// `voicememo play` on a terminal: the recorder's live display (a bar per channel of the memos with peak and
/// average dBFS and peak hold, unless the meter is off) over a status line (playing or paused, titles,
/// position, speed), redrawn about 20 times a second; and, when standard input is the terminal too, keys:
/// space pauses and resumes, ←/→ seek 5 s, [/] jump to the marker before or after, +/- change the speed by 0.25,
/// q quits.
struct InteractivePlayback {
    /// Seconds a seek key moves.
    static let seekStep: TimeInterval = 5
    /// Speed a +/- key adds or takes away.
    static let rateStep: Float = 0.25
    /// Seconds past a marker within which `[` goes to the one before it, as a player's "previous" does.
    static let markerGrace: TimeInterval = 1

    let group: PlayerGroup
    /// What the status line calls the memos.
    let title: String
    let showsMeter: Bool
    /// Whether space paused playback (which Ctrl-Z and `fg` leave paused).
    let keyPause: KeyPause
    /// The markers of the first memo, in seconds, in order: where [ and ] go.
    var markerTimes: [TimeInterval] = []

    /// Plays the group on `display`; returns as ``PlayerGroup/playTogether()`` does, with the terminal
    /// restored whichever way playback ends.
    func run(on display: TerminalDisplay) async throws -> PlayerGroup.Ending {
        let live = LiveMeter(on: display)
        defer { live.finish() }
        let keys = display.takesKeys ? Task { for await key in Key.typed() { handle(key) } } : nil
        defer { keys?.cancel() }
        let ended = Latch()
        let playing = Task { [group] in
            defer { ended.set() }
            return try await group.playTogether()
        }
        while !ended.isSet {
            // Not once playback has ended: the players are back at the start by then.
            guard try await live.nextTick(), !ended.isSet else { continue }
            let lead = group.players[0]
            let levels = showsMeter ? levels() : AudioLevels(peak: [], average: [])
            try live.show(
                levels, elapsed: lead.currentTime, bytes: nil,
                status: MeterLine.playback(
                    title, isPlaying: group.players.contains(where: \.isPlaying), position: lead.currentTime,
                    duration: lead.duration, rate: lead.rate))
        }
        return try await playing.value
    }

    /// The levels since the last reading, per channel of the memos: the loudest player's.
    private func levels() -> AudioLevels {
        for player in group.players { player.updateMeters() }
        func loudest(_ level: (AudioPlayer) -> Float) -> Double {
            Double(group.players.map(level).max() ?? Float(AudioLevels.floor))
        }
        let channels = 0..<(group.players.map(\.numberOfChannels).max() ?? 1)
        return AudioLevels(
            peak: channels.map { channel in loudest { $0.peakPower(forChannel: channel) } },
            average: channels.map { channel in loudest { $0.averagePower(forChannel: channel) } })
    }

    private func handle(_ key: Key) {
        let players = group.players
        switch key {
        case .space:
            let isPlaying = players.contains(where: \.isPlaying)
            keyPause.set(isPlaying)
            if isPlaying { players.forEach { $0.pause() } } else { players.forEach { $0.play() } }
        case .left, .right:
            let step = key == .left ? -Self.seekStep : Self.seekStep
            for player in players { player.currentTime = min(max(player.currentTime + step, 0), player.duration) }
        case .plus, .minus:
            let step = key == .plus ? Self.rateStep : -Self.rateStep
            for player in players { player.rate = min(max(player.rate + step, 0.5), 2) }
        case .previousMarker, .nextMarker:
            let now = players[0].currentTime
            // Back past the start of the file is its start; on past the last marker, nowhere.
            let target = key == .nextMarker
                ? markerTimes.first { $0 > now + 0.01 } : markerTimes.last { $0 < now - Self.markerGrace } ?? 0
            guard let target else { break }
            for player in players { player.currentTime = min(target, player.duration) }
        case .quit:
            group.quit()
        case .enter, .mark:
            break
        }
    }
}
