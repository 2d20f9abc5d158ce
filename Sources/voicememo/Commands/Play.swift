import ArgumentParser
import AudioIO
import FoundationEssentials
import Glibc
import MemoStore

extension VoiceMemo {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play memos and audio files; several start together, on the same device frame.",
            discussion: """
                A file that is not in the store plays without being imported, as it is: anything import reads. An \
                argument with a '/' in it (./talk.m4a, ~/x.wma) is such a file; one without is a memo, unless no \
                memo has that id or title and a file of that name is in the current directory.

                On a terminal it shows the output level, the waveform of the (first) memo with the play head, and the \
                position, redrawn in place, and takes keys: \
                space pauses and resumes, ←/→ seek 5 s, +/- change the speed by 0.25 (pitch kept), s skips silence \
                or stops skipping it, q quits; \
                Ctrl-Z pauses until fg. Otherwise it prints a line per memo as playback starts. A memo or file \
                played alone is published on the session bus as the MPRIS player 'voicememo': media keys, desktop \
                widgets and playerctl show it and play, pause, seek, change its speed and volume, and stop it. Ctrl-C, \
                SIGTERM and SIGHUP stop it with the exit code a shell gives a command the signal ended \
                (130, 143, 129). A memo still being recorded is not played.
                """)

        @Argument(help: ArgumentHelp(
            "The memos (ids, id prefixes of 4+ characters, exact titles) or audio files (paths).", valueName: "memo|path"),
            completion: MemoArgument.completion)
        var memos: [String]

        @Option(help: ArgumentHelp("The ALSA device to play on (default: 'default').", valueName: "pcm"))
        var device = "default"

        @OptionGroup var sound: SoundOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Extra passes: 0 plays once, -1 loops until stopped.", valueName: "n"))
        var loops = 0

        @Option(help: ArgumentHelp("Where to start, in seconds.", valueName: "seconds"))
        var start: Double = 0

        @Flag(help: ArgumentHelp(
            "Skip silence: pauses of 0.4 s or more (as heard) are cut to 0.2 s, crossfaded.",
            discussion: "Silence is 26 dB below the memo's average level. The position stays the memo's time; the status line shows the time saved."))
        var skipSilence = false

        @Flag(help: "Show no level meter.")
        var noMeter = false

        @Flag(help: "Print one JSON object when playback ends.")
        var json = false

        func validate() throws {
            guard start >= 0, start.isFinite else { throw ValidationError("--start must be 0 or more seconds, not \(start).") }
        }

        func run() async throws {
            let items = try PlayItem.items(memos, storeDirectory: MemoStore.defaultDirectory())
            if let recording = items.compactMap(\.memo).first(where: { $0.state == .recording }) {
                throw StillRecording(memo: recording)
            }
            let onTerminal = !json && TerminalDisplay.isAvailable
            IOBufferChoice.apply()
            let players = try items.map { item in
                let player = try AudioPlayer(contentsOf: item.url)
                player.currentDevice = device
                player.volume = sound.volume
                player.pan = sound.pan
                player.numberOfLoops = loops
                // Rate changes need SoundTouch in the path from the start; keys can change it in a terminal.
                player.enableRate = onTerminal || sound.rate != 1
                player.rate = sound.rate
                player.isMeteringEnabled = onTerminal && !noMeter
                // The threshold is relative to the memo's own level, measured when it came in; a file's is measured
                // as it plays.
                player.silenceSkipping.referenceLevel = item.memo?.averageDBFS.max()
                player.skipsSilence = skipSilence
                return player
            }
            for (item, player) in zip(items, players) {
                guard player.prepareToPlay() else { throw PlaybackFailure(title: item.title, status: player.status) }
                player.currentTime = min(start, player.duration)
            }
            let display = onTerminal ? TerminalDisplay() : nil
            if !json, display == nil {
                for (item, player) in zip(items, players) {
                    let duration = item.memo?.duration ?? player.duration
                    print("Playing “\(item.title.terminalSafe)” (\(Describe.duration(duration))) on \(device.terminalSafe)")
                }
                // A pipe is block-buffered: whoever reads it should learn now, not when playback ends.
                fflush(nil)
            }
            let started = Date()
            let keyPause = KeyPause()
            let notices = SessionNotices(
                recording: false, devices: [device], keys: display?.takesKeys ?? false, keyPause: keyPause, display: display,
                printing: !json)
            defer { withExtendedLifetime(notices) {} }
            let group = PlayerGroup(players: players, pausesOnDeviceLoss: display?.takesKeys ?? false)
            let published = PublishedPlayback(items[0], player: players[0], in: group, alone: items.count == 1)
            defer { published.end() }
            let ending: PlayerGroup.Ending
            if let display {
                let title = items.map(\.title.terminalSafe).joined(separator: " + ")
                ending = try await InteractivePlayback(
                    group: group, title: title, showsMeter: !noMeter, keyPause: keyPause, waveform: PlayheadWaveform(of: items[0])
                ).run(on: display)
            } else {
                ending = try await group.playTogether()
            }
            if json {
                let summary = PlaySummary(
                    memos: items.compactMap(\.memo?.id), files: items.filter { $0.memo == nil }.map(\.url.path),
                    completed: ending == .completed, seconds: Date().timeIntervalSince(started),
                    silenceSkipped: skipSilence ? players.map(\.skippedSilenceDuration).reduce(0, +) : nil)
                print(try MemoJSON.line(summary))
            }
            // As a shell reports a command a signal ended: 128 + its number (130 for Ctrl-C).
            if case .stopped(let signal) = ending { throw ExitCode(128 + signal) }
        }
    }
}

/// What `play --json` prints.
private struct PlaySummary: Encodable {
    /// The ids of the memos played.
    let memos: [String]
    /// The absolute paths of the files played that are not memos.
    let files: [String]
    let completed: Bool
    let seconds: Double
    /// With --skip-silence: seconds of the memos left out as silence.
    let silenceSkipped: Double?
}

/// A memo or file that could not be prepared for playback: its device or file failed.
struct PlaybackFailure: Error, CustomStringConvertible {
    let title: String
    let status: AudioPlayer.Status

    var description: String {
        guard case .failed(let error) = status else { return "cannot play “\(title.terminalSafe)”" }
        return "cannot play “\(title.terminalSafe)”: \(Describe.failure(error))"
    }
}

/// A memo whose recording is still under way: its file has no end yet.
struct StillRecording: Error, CustomStringConvertible {
    let memo: Memo

    var description: String {
        "“\(memo.title.terminalSafe)” is still being recorded; play it once the recording ends "
            + "(q or Ctrl-C in the terminal that records it)"
    }
}
