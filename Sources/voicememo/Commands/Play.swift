import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge

extension VoiceMemo {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Play memos and audio files, one after another or together on the same device frame.",
            discussion: """
                A file that is not in the store plays without being imported, as it is: anything import reads. An \
                argument with a '/' in it (./talk.m4a, ~/x.wma) is such a file; one without is a memo, unless no \
                memo has that id or title and a file of that name is in the current directory. Several memos play \
                one after another, without a gap between them; with --together they all start on the same device \
                frame instead.

                An http:// or https:// address plays while it downloads: seeking ahead asks for that part at once, \
                and playback waits when the download falls behind and goes on by itself. What was downloaded is kept \
                in $XDG_CACHE_HOME/voicememo/http (else ~/.cache/voicememo/http), up to --cache-size (else the size 'voicememo \
                cache --set-size' keeps, else 1G), the least recently used going first: playing it again, or \
                importing it, downloads nothing. 'voicememo cache' lists it, and --clear empties it. An address that needs a sign-in takes \
                --header 'Authorization: Bearer TOKEN' (any header, repeated for more), sent with every request for \
                it; a redirect to another host or port gets no Authorization or Cookie. A server that refuses the \
                request (401, 403) is not played from the cache either. A server whose certificate a private CA \
                signed takes --ca-file ca.pem. A fault the download cannot get over (no connection in 15 s, nothing \
                sent for 30 s, a redirect loop, a wrong Content-Length) ends it with one line saying which.

                On a terminal it shows the output level, the waveform of the memo heard with the play head (of an \
                address, what is downloaded of it so far), and the position, redrawn in place, and takes keys: space pauses and resumes, ←/→ seek \
                5 s, shift+←/→ (or , and .) seek 15 s, [ and ] jump to the marker or chapter before or after in the memo heard \
                ('info' lists them), +/- change the speed by 0.25 (0.25 to 4), 9 and 0 (or / and *) the volume by 10%, \
                n and p go to the next and previous \
                memo, s sets the sleep timer (15, 30, 60 minutes, off), k skips silence or stops skipping it, q \
                quits; Ctrl-Z pauses until fg. Otherwise it prints a line per memo as it starts.

                --skip-silence (or k) cuts pauses of 0.4 s or more, as heard, to 0.2 s, crossfaded: silence is 26 dB \
                below the memo's average level (a file's, or memos' played in turn, measured as they play). The \
                position stays the memo's time; the status line shows the time saved. Memos played --together keep \
                their pauses, which would set them apart.

                --start and --end play a range of a memo, to the frame, and --loops repeats exactly that range, without \
                a gap: a sentence to learn or to transcribe. --rate plays at 0.25 to 4 times the speed, the pitch kept, \
                or with --pitch varispeed following the speed, as a tape played faster.

                --normalize plays each at -16 LUFS (or the loudness given), as ReplayGain does, from the loudness \
                measured of each memo (a file that is not a memo is measured first).

                The sleep timer (--sleep, or s) counts the time spent playing, not paused; over its last 10 seconds the \
                sound fades out, then play ends as q ends it.

                What plays is published on the session bus as the MPRIS player 'voicememo': media keys, desktop \
                widgets and playerctl show it and play, pause, seek, change its speed and volume, and stop it (as q \
                does). Memos played one after another are a track each, with next and previous; memos played \
                --together are one track, titled 'A + B' and as long as the first, and what the remote does acts on \
                all of them. Ctrl-C, SIGTERM and SIGHUP stop it with the exit code a shell gives a command the signal \
                ended (130, 143, 129). A memo still being recorded is not played.
                """)

        @Argument(help: ArgumentHelp(
            "The memos (ids, id prefixes of 4+ characters, exact titles), audio files (paths) or http(s) addresses.",
            valueName: "memo|path|url"),
            completion: MemoArgument.completion)
        var memos: [String]

        @Flag(help: "Start several memos together, on the same device frame, rather than one after another.")
        var together = false

        @Option(help: ArgumentHelp("The ALSA device to play on (default: 'default').", valueName: "pcm"))
        var device = "default"

        @OptionGroup var sound: SoundOptions

        @Option(help: ArgumentHelp(
            "How the speed changes: time-domain keeps the pitch (SoundTouch, tuned for speech); varispeed lets it follow the speed, as a tape played faster (libsoxr).",
            valueName: "algorithm"))
        var pitch: PitchOption = .timeDomain

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "Extra passes: 0 plays once, -1 loops until stopped; of the whole list for memos played in turn.", valueName: "n"))
        var loops = 0

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Where to start: seconds, m:ss or h:mm:ss (in the first of memos played in turn); a memo alone, or memos played together, loop from there.",
                valueName: "time"))
        var start = TimeArgument(seconds: 0)

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Where to stop: seconds, m:ss or h:mm:ss, to the frame; with --loops the range from --start repeats without a gap. Not for memos played in turn.",
                valueName: "time"))
        var end: TimeArgument?

        @Option(
            help: ArgumentHelp("Stop after this much playing, fading out over its last 10 s: 90s, 20m, 1h, 1h30m.", valueName: "duration"),
            transform: SleepDuration.parse)
        var sleep: SleepDuration?

        @Flag(help: "Skip silence: pauses of 0.4 s or more (as heard) are cut to 0.2 s, crossfaded.")
        var skipSilence = false

        @Flag(help: "Show no level meter.")
        var noMeter = false

        @Flag(help: "Print one JSON object when playback ends.")
        var json = false

        @OptionGroup var http: RequestOptions

        @OptionGroup var cache: CacheSizeOptions

        func validate() throws {
            guard start.seconds >= 0 else { throw TimeArgument.beforeTheStart("--start", start) }
            if skipSilence, together, memos.count > 1 {
                throw ValidationError("--skip-silence cannot be used with --together: each memo's pauses differ, and they would play apart.")
            }
            if let end {
                guard end.seconds > start.seconds else { throw ValidationError("--end \(end) must come after --start \(start).") }
                guard memos.count == 1 || together else {
                    throw ValidationError("--end plays a range of one memo, or of memos played --together, not of memos played in turn.")
                }
            }
        }

        func run() async throws {
            try cache.apply(for: memos)
            let items = try PlayItem.items(memos, storeDirectory: MemoStore.defaultDirectory(), options: http.assetOptions)
            if let recording = items.compactMap(\.memo).first(where: { $0.state == .recording }) {
                throw StillRecording(memo: recording)
            }
            if let arriving = items.compactMap(\.memo).first(where: { $0.state == .syncing }) {
                throw MemoStoreError.stillSyncing(arriving.title)
            }
            let onTerminal = !json && TerminalDisplay.isAvailable
            IOBufferChoice.apply(IOBufferChoice.playing)
            let normalization = try sound.normalize.map { try NormalizeOption.Plan(items: items, target: $0) }
            let display = onTerminal ? TerminalDisplay() : nil
            let announces = !json && display == nil
            let memos = items.count > 1 && !together
                ? PlayedMemos(inTurn: try queue(items, normalization: normalization, metering: onTerminal && !noMeter, announces: announces))
                : try together(items, normalization: normalization, onTerminal: onTerminal, announces: announces)
            for item in items { item.remoteMarkers?.startReading() }
            let started = Date()
            let keyPause = KeyPause()
            let notices = SessionNotices(
                recording: false, devices: [device], keys: display?.takesKeys ?? false, keyPause: keyPause, display: display,
                printing: !json)
            defer { withExtendedLifetime(notices) {} }
            let run = PlaybackRun(memos, pausesOnDeviceLoss: display?.takesKeys ?? false)
            let published = PublishedPlayback(memos, ending: run)
            defer { published.end() }
            let sleepTimer = SleepTimer(over: memos.playback) { run.quit() }
            defer { sleepTimer.invalidate() }
            if let sleep { sleepTimer.set(sleep.seconds) }
            let ending: PlaybackRun.Ending
            if let display {
                ending = try await InteractivePlayback(
                    run: run, showsMeter: !noMeter, keyPause: keyPause, sleepTimer: sleepTimer, notices: notices).run(on: display)
            } else {
                let notices = json ? nil : DownloadNotices(memos)
                defer { notices?.end() }
                ending = try await run.run()
            }
            if sleepTimer.hasEnded, !json { print("Stopped by the sleep timer.") }
            if json {
                let summary = PlaySummary(
                    memos: items.compactMap(\.memo?.id), files: items.filter { $0.memo == nil && !$0.isRemote }.map(\.url.path),
                    addresses: items.filter(\.isRemote).map { RemoteAddress.shown($0.url) },
                    completed: ending == .completed, seconds: Date().timeIntervalSince(started),
                    silenceSkipped: skipSilence ? memos.skippedSilenceDuration : nil)
                print(try MemoJSON.line(summary))
            }
            // As a shell reports a command a signal ended: 128 + its number (130 for Ctrl-C).
            if case .stopped(let signal) = ending { throw ExitCode(128 + signal.rawValue) }
        }

        /// Memos played together (or one alone), prepared and at `--start`, each at its gain of `normalization`; their
        /// lines printed when `announces`.
        private func together(
            _ items: [PlayItem], normalization: NormalizeOption.Plan?, onTerminal: Bool, announces: Bool
        ) throws -> PlayedMemos {
            let players = try items.enumerated().map { number, item in
                // An address's player is made at once; preparing it below waits for its header.
                let player = try AudioPlayer(contentsOf: item.url, options: item.options)
                player.currentDevice = device
                player.volume = sound.volume
                player.gain = Float(normalization?.gains[number] ?? 0)
                player.pan = sound.pan
                player.numberOfLoops = loops
                player.forwardPlaybackStartTime = start.seconds
                player.forwardPlaybackEndTime = end?.seconds
                // Rate changes need SoundTouch in the path from the start; keys can change it in a terminal.
                player.enableRate = onTerminal || sound.rate != 1
                player.rate = sound.rate
                player.audioTimePitchAlgorithm = pitch.algorithm
                player.isMeteringEnabled = onTerminal && !noMeter
                // The threshold is relative to the memo's own level, measured when it came in; a file's is measured
                // as it plays.
                player.silenceSkipping.referenceLevel = item.memo?.averageDBFS.max()
                player.skipsSilence = skipSilence
                return player
            }
            for (item, player) in zip(items, players) {
                // A device another program holds: a memo alone waits for it (see PlayedMemos.start); several
                // could not start on one frame.
                guard player.prepareToPlay() || items.count == 1 && player.status.isWaitingForDevice else {
                    throw PlaybackFailure(title: item.title, status: player.status)
                }
            }
            if announces {
                for (item, player) in zip(items, players) {
                    Self.announce(item, duration: player.duration, on: device, suffix: normalization?.description(of: item) ?? "")
                }
            }
            return PlayedMemos(items, playedBy: players.count == 1 ? players[0] : PlayerGroup(players: players))
        }

        /// Memos played in turn, each at its gain of `normalization` (dB), from `--start` in the first; a line printed as
        /// each starts when `announces`.
        private func queue(
            _ items: [PlayItem], normalization: NormalizeOption.Plan?, metering: Bool, announces: Bool
        ) throws -> PlayQueue {
            let playQueue = try PlayQueue(items: items, gains: normalization?.gains, device: device, loops: loops) { [device] item in
                if announces { Self.announce(item, on: device, suffix: normalization?.description(of: item) ?? "") }
            }
            let queue = playQueue.queue
            queue.volume = sound.volume
            queue.pan = sound.pan
            queue.defaultRate = sound.rate
            queue.audioTimePitchAlgorithm = pitch.algorithm
            queue.isMeteringEnabled = metering
            // One level for every memo in turn: measured as they play.
            queue.skipsSilence = skipSilence
            queue.currentTime = start.seconds
            return playQueue
        }

        /// The line for `item` starting, off a terminal.
        /// `Playing “Standup” (1:05.0) on default`, at once: whoever reads a pipe should learn now, not when playback ends.
        private static func announce(_ item: PlayItem, duration: TimeInterval? = nil, on device: String, suffix: String = "") {
            let length = item.memo?.duration ?? duration ?? (try? AudioFile(forReading: item.url, options: item.options).duration) ?? 0
            print("Playing “\(item.title.terminalSafe)” (\(Describe.duration(length))) on \(device.terminalSafe)\(suffix)")
            CurrentProcess.flushOutput()
        }
    }
}

/// What `play --json` prints.
private struct PlaySummary: Encodable {
    /// The ids of the memos played.
    let memos: [String]
    /// The absolute paths of the files played that are not memos.
    let files: [String]
    /// The http(s) addresses played.
    let addresses: [String]
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
