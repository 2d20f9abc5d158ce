import AudioIO
import FoundationEssentials

/// `voicememo play` on a terminal: the recorder's live display (a bar per channel of the memos with peak and
/// average dBFS and peak hold, unless the meter is off), the first memo's waveform with the play head, and a status
/// line (playing or paused, titles, position, speed, the time saved while silence is skipped), redrawn about 20 times a
/// second; and, when standard input is the terminal too, keys: space pauses and resumes, ←/→ seek 5 s, +/- change the
/// speed by 0.25, s skips silence or stops skipping it, q quits.
struct InteractivePlayback {
    /// Seconds a seek key moves.
    static let seekStep: TimeInterval = 5
    /// Speed a +/- key adds or takes away.
    static let rateStep: Float = 0.25

    let group: PlayerGroup
    /// What the status line calls the memos.
    let title: String
    let showsMeter: Bool
    /// Whether space paused playback (which Ctrl-Z and `fg` leave paused).
    let keyPause: KeyPause
    /// The lead item's waveform, drawn with the play head.
    let waveform: PlayheadWaveform?

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
            let position = lead.currentTime
            try live.show(
                levels, elapsed: position, bytes: nil,
                timeline: { waveform?.line(columns: $0, position: position, duration: lead.duration) },
                status: MeterLine.playback(
                    title, isPlaying: group.players.contains(where: \.isPlaying), position: position,
                    duration: lead.duration, rate: lead.rate, silenceSkipped: lead.skipsSilence ? lead.skippedSilenceDuration : nil))
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
        case .skipSilence:
            let skips = !players.contains(where: \.skipsSilence)
            for player in players { player.skipsSilence = skips }
        case .quit:
            group.quit()
        case .enter:
            break
        }
    }
}
