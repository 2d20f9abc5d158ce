import AudioIO
import FoundationEssentials

/// `voicememo play` on a terminal: the recorder's live display (a bar per channel of the memos with peak and
/// average dBFS and peak hold, unless the meter is off), the waveform of the memo heard with the play head, a status
/// line (playing or paused, title, position, the memo's place in turn, the sleep timer, speed, the time saved while
/// silence is skipped; buffering while an address waits for its download; waiting while another program holds the
/// device), and for an address a bar of what is
/// downloaded (``ProgressBar``), redrawn about 20 times a second; and, when standard input is the terminal too, keys:
/// space pauses and resumes, ←/→ seek 5 s, shift+←/→ (or `,`/`.`) 15 s, [/] jump to the marker before or after in the
/// memo heard, +/- change the speed by 0.25, 9/0 the volume by 10%, n/p go to the next or previous memo, s sets the
/// sleep timer, k skips silence or stops skipping it, q quits.
struct InteractivePlayback {
    /// Seconds a seek key moves.
    static let seekStep: TimeInterval = 5
    /// Seconds a shifted seek key moves.
    static let longSeekStep: TimeInterval = 15
    /// Speed a +/- key adds or takes away.
    static let rateStep: Float = 0.25
    /// Volume a 9/0 key takes away or adds: a tenth of full, as the status line shows it in percent.
    static let volumeStep: Float = 0.1
    /// Seconds past a marker within which `[` goes to the one before it, as a player's "previous" does.
    static let markerGrace: TimeInterval = 1

    let run: PlaybackRun
    let showsMeter: Bool
    /// Whether space paused playback (which Ctrl-Z and `fg` leave paused).
    let keyPause: KeyPause
    let sleepTimer: SleepTimer
    /// Whether another program holds the device, which playback waits for.
    let notices: SessionNotices

    private var memos: PlayedMemos { run.memos }
    private var playback: any Playback { run.memos.playback }

    /// Plays on `display`; returns as ``PlaybackRun/run()`` does, with the terminal restored whichever way playback
    /// ends.
    func run(on display: TerminalDisplay) async throws -> PlaybackRun.Ending {
        let live = LiveMeter(on: display)
        defer { live.finish() }
        let keys = display.takesKeys ? Task { for await key in Key.typed() { handle(key) } } : nil
        defer { keys?.cancel() }
        let ended = Latch()
        let playing = Task { [run] in
            defer { ended.set() }
            return try await run.run()
        }
        // The waveform of the memo heard, which changes as memos play in turn.
        let waveform = PlayheadWaveform()
        // Drawn on a thread of its own while this task waits for playback to end.
        let ticker = live.start { [self] live in
            // Not once playback has ended: the players are back at the start by then.
            guard !ended.isSet else { return }
            let levels = showsMeter ? memos.levels() : AudioLevels(peak: [], average: [])
            let position = playback.currentTime
            let duration = playback.playbackDuration
            let loaded = memos.loadedTimeRanges
            let footer = loaded.map { loaded in
                { (columns: Int) in ProgressBar.line(position: position, duration: duration, loaded: loaded, columns: columns) }
            }
            // Only JSON lines throw, and a terminal is drawn on.
            try? live.show(
                levels, elapsed: position, bytes: nil,
                timeline: {
                    waveform.line(of: memos.heard, columns: $0, position: position, duration: duration, loaded: loaded)
                },
                status: MeterLine.playback(
                    memos.title.terminalSafe, isPlaying: playback.isPlaying, position: position, duration: duration,
                    rate: playback.rate, volume: playback.volume, place: memos.place, sleep: sleepTimer.remaining, isBuffering: playback.isPlaybackBufferEmpty,
                    silenceSkipped: memos.skipsSilence ? memos.skippedSilenceDuration : nil,
                    waitsForDevice: notices.waitsForDevice),
                footer: footer)
        }
        defer { ticker.stop() }
        return try await playing.value
    }

    private func handle(_ key: Key) {
        switch key {
        case .space:
            let isPlaying = playback.isPlaying
            keyPause.set(isPlaying)
            if isPlaying { playback.pause() } else { playback.play() }
        case .left, .right:
            playback.skip(by: key == .left ? -Self.seekStep : Self.seekStep)
        case .shiftLeft, .shiftRight:
            playback.skip(by: key == .shiftLeft ? -Self.longSeekStep : Self.longSeekStep)
        case .plus, .minus:
            let step = key == .plus ? Self.rateStep : -Self.rateStep
            playback.setRate(min(max(playback.rate + step, SoundOptions.rates.lowerBound), SoundOptions.rates.upperBound))
        case .volumeDown, .volumeUp:
            // In whole steps from wherever it was (--volume, a remote), so that 0 and 100% are reached.
            let steps = ((playback.volume / Self.volumeStep).rounded() + (key == .volumeUp ? 1 : -1))
            playback.volume = min(max(steps * Self.volumeStep, 0), 1)
        case .next:
            memos.next()
        case .previous:
            memos.previous()
        case .sleep:
            sleepTimer.cycle()
        case .skipSilence:
            memos.skipsSilence.toggle()
        case .previousMarker, .nextMarker:
            let now = playback.currentTime
            let markers = memos.markerTimes
            // Back past the start of the memo is its start; on past the last marker, nowhere.
            let target = key == .nextMarker
                ? markers.first { $0 > now + 0.01 } : markers.last { $0 < now - Self.markerGrace } ?? 0
            guard let target else { break }
            playback.currentTime = target
        case .quit:
            run.quit()
        case .enter, .mark:
            break
        }
    }
}
