import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge
import SystemPackage

extension VoiceMemo {
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record",
            abstract: "Record a memo from an input device.",
            discussion: """
                Records until q, Ctrl-C, SIGTERM or SIGHUP (the terminal closed), or for --duration seconds; \
                either way the file and the memo are finished, and the exit code is 0. Without --preset or \
                --format the memo is 16-bit mono WAV at 48 kHz. On a terminal a live meter shows each \
                channel's level, the elapsed time and the file size; otherwise a plain line of levels every \
                second. When standard input is a terminal, keys act: space pauses and resumes (nothing of \
                the pause is recorded), m drops a marker at the current time (shown on the status line; \
                'info' lists the markers, 'play' jumps between them with [ and ]), q or Enter stops; Ctrl-Z \
                pauses too, until fg. --format aac (or m4a) records AAC-LC in an .m4a file (64 kb/s per channel unless --bitrate \
                says otherwise). --artist, --album and --comment go into the file's tags with the title and \
                date. A recording whose process is killed keeps what reached the disk (all but its last \
                second at most) and the markers dropped, and is listed as recovered. --enhance cleans up \
                speech as it is recorded: noise suppressed, level brought to about -19 dBFS (webrtc-audio-processing); \
                the meter shows the input as it comes.
                """)

        /// `--title` defaults to “Memo” and the date.
        enum Title: TitleDefault {
            static let help = " (default: “Memo” and the date and time)"
        }

        @OptionGroup
        var newMemo: NewMemoOptions<Title>

        @OptionGroup
        var capture: CaptureOptions

        @Flag(help: "Clean up speech as it is recorded: suppress noise, adjust the level (mono or stereo).")
        var enhance = false

        @Flag(help: "Show no meter and print no level lines.")
        var noMeter = false

        @Flag(help: "Print the new memo as one JSON object (and no meter).")
        var json = false

        /// Seconds between two level lines off the terminal.
        static let plainInterval = 1.0

        func run() async throws {
            let settings = try recordingSettings()
            // A stop signal or the recording's end: what a recording with nothing to draw waits for.
            let wakes = AsyncStream<Void>.makeStream()
            let stop = StopSignals { wakes.continuation.yield() }
            let live = LiveMeter(hidden: noMeter || json, json: false, plainInterval: Self.plainInterval)
            defer { live.finish() }
            // Keys come from the live display's terminal or, when nothing is drawn there (--no-meter, --json, output
            // to a pipe), from standard input alone when it is a terminal.
            let keyboard = live.display ?? TerminalDisplay(drawing: false)
            defer { keyboard?.finish() }
            IOBufferChoice.apply(live.isShown ? IOBufferChoice.recording : IOBufferChoice.recordingUnseen)
            // Capture starts with the command, before anything slow (the store's lock, its index, a recovery): what is
            // said meanwhile waits in the ring. A device that cannot be opened now (another program holds it) is left to
            // the recorder, which says why or waits for it.
            let early = try? EarlyCapture(settings: settings, device: capture.device, duration: capture.duration)
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            try SpaceFailure.requireRoom(forRecording: settings, in: store.directory.path)
            let ticket = try beginMemo(in: store, settings: settings)
            let recorder = try makeRecorder(for: ticket, metering: live.isShown)
            let progress = RecordingProgress(recorder) { wakes.continuation.yield() }
            let keyPause = KeyPause()
            let notices = SessionNotices(
                recording: true, devices: [capture.device], keys: false, keyPause: keyPause, display: live.display, printing: !json)
            defer { withExtendedLifetime(notices) {} }
            try start(recorder, from: early, progress: progress)
            if case .plain = live.style {
                print("Recording “\(ticket.memo.title.terminalSafe)” as \(ticket.memo.id); \(keyboard?.takesKeys == true ? "q or " : "")Ctrl-C stops.")
                CurrentProcess.flushOutput()
            }
            let keys = RecordingKeys(
                recorder: recorder, store: store, ticket: ticket, progress: progress, stop: stop, keyPause: keyPause,
                printsMarkers: live.display == nil && !json) { wakes.continuation.yield() }
            let typing = keyboard?.takesKeys == true ? Task { await keys.handle(Key.typed()) } : nil
            defer { typing?.cancel() }
            let ticker = live.isShown
                ? drawMeter(of: recorder, ticket: ticket, on: live, progress: progress, marks: keys.marks, notices: notices, silence: SilentInput())
                : nil
            await waitForTheEnd(of: recorder, wakes: wakes.stream, stop: stop, keys: keys, progress: progress)
            ticker?.stop()
            live.finish()
            keyboard?.finish()
            await progress.waitUntilFinished()
            guard let summary = recorder.summary else { throw Self.failure(of: recorder, progress) }
            let memo = try store.finishRecording(ticket, summary: summary, markers: recorder.markers)
            try report(memo, in: store)
            if let warning = progress.overrunWarning {
                _ = try? FileDescriptor.standardError.writeAll("voicememo: warning: \(warning)\n".utf8)
            }
            if SilentInput.isSilent(peaks: memo.peakDBFS, seconds: memo.duration) {
                _ = try? FileDescriptor.standardError.writeAll("voicememo: warning: \(SilentInput.warning(peaks: memo.peakDBFS))\n".utf8)
            }
            // Cut short by a write or device failure: the memo keeps what was written, and the run fails.
            if !progress.succeeded { throw Self.failure(of: recorder, progress) }
        }

        /// The settings asked for, checked against `--enhance`.
        private func recordingSettings() throws -> AudioSettings {
            let settings = try newMemo.encoding.recordingSettings()
            if enhance, settings.channelCount > 2 {
                throw ValidationError("--enhance takes mono or stereo, not \(settings.channelCount) channels; record with --channels 1 or 2.")
            }
            return settings
        }

        /// The memo's entry in `store` (state `recording`), which names its file.
        private func beginMemo(in store: MemoStore, settings: AudioSettings) throws -> RecordingTicket {
            try store.beginRecording(
                title: newMemo.title ?? "Memo \(Describe.date(Date()))", settings: settings, artist: newMemo.tags.artist,
                album: newMemo.tags.album, comment: newMemo.tags.comment)
        }

        /// The recorder of `ticket`'s file, metering when the meter is shown.
        private func makeRecorder(for ticket: RecordingTicket, metering: Bool) throws -> AudioRecorder {
            let recorder = try AudioRecorder(url: ticket.fileURL, settings: ticket.settings, metadata: ticket.metadata)
            recorder.currentDevice = capture.device
            recorder.isMeteringEnabled = metering
            recorder.speechEnhancement = enhance ? SpeechEnhancement() : nil
            return recorder
        }

        /// Starts `recorder` with what `early` captured, or from its device now (for `--duration`, if given); a device
        /// another program holds is waited for: the session starts the recording once it is free.
        private func start(_ recorder: AudioRecorder, from early: EarlyCapture?, progress: RecordingProgress) throws {
            let started = if let early { recorder.record(from: early) } else {
                capture.duration.map { recorder.record(forDuration: $0) } ?? recorder.record()
            }
            guard started || recorder.status.isWaitingForDevice else {
                recorder.deleteRecording()
                throw Self.failure(of: recorder, progress)
            }
        }

        /// Waits for a stop signal, q or Enter (then stops `recorder`), or the recording's own end (its duration, a
        /// failure), each of which yields to `wakes`.
        private func waitForTheEnd(
            of recorder: AudioRecorder, wakes: AsyncStream<Void>, stop: StopSignals, keys: RecordingKeys, progress: RecordingProgress
        ) async {
            for await _ in wakes {
                let isStopping = stop.received != nil || keys.stopKey.isSet
                if isStopping { recorder.stop() }
                if isStopping || progress.hasFinished { return }
            }
        }

        /// Draws the live meter on a thread of its own until the recording has finished.
        private func drawMeter(
            of recorder: AudioRecorder, ticket: RecordingTicket, on live: LiveMeter, progress: RecordingProgress,
            marks: MarkerFlash, notices: SessionNotices, silence: SilentInput
        ) -> Ticker {
            let channels = 0..<ticket.settings.channelCount
            let title = ticket.memo.title.terminalSafe
            let path = ticket.fileURL.path
            return live.start { live in
                guard !progress.hasFinished else { return }
                recorder.updateMeters()
                let levels = AudioLevels(
                    peak: channels.map { Double(recorder.peakPower(forChannel: $0)) },
                    average: channels.map { Double(recorder.averagePower(forChannel: $0)) })
                let size = FileManager.default.sizeOfItem(atPath: path) ?? 0
                let elapsed = recorder.currentTime
                if recorder.isRecording { silence.note(peaks: levels.peak) }
                let head = marks.recent.map { "▼ MARKER \($0)  " }
                    ?? (recorder.isRecording ? "● REC  " : notices.waitsForDevice ? MeterLine.waitingForDevice : "⏸ PAUSED  ")
                let note = silence.isSilent(after: elapsed) ? SilentInput.statusField : nil
                // Only JSON lines throw, and record prints none.
                try? live.show(
                    levels, elapsed: elapsed, bytes: size, status: MeterLine.status(head, title: title, elapsed: elapsed, bytes: size, note: note))
            }
        }

        /// Prints the finished memo: as JSON, or a summary line that fits the terminal.
        private func report(_ memo: Memo, in store: MemoStore) throws {
            if json { return print(try MemoJSON.line(MemoJSON(memo, in: store))) }
            let gaps = memo.markers.filter { $0.name?.hasPrefix(AudioMarker.interruptionPrefix) == true }.count
            let interrupted = gaps == 0 ? "" : " (\(gaps == 1 ? "a gap" : "\(gaps) gaps") where another program held the device)"
            let summary = SummaryLine(
                head: "Recorded “", title: memo.title.terminalSafe, middle: "” as \(memo.id): ",
                fields: [
                    Describe.duration(memo.duration), Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels),
                    Describe.size(memo.sizeBytes), "peak \(Describe.levels(memo.peakDBFS))",
                ] + (memo.markers.isEmpty ? [] : ["\(memo.markers.count) marker\(memo.markers.count == 1 ? "" : "s")" + interrupted]))
            // On a terminal every line fits its width.
            for line in summary.lines(fittingColumns: TerminalDisplay.outputColumns) { print(line) }
        }

        /// Why the recording failed, as the error to report.
        private static func failure(of recorder: AudioRecorder, _ progress: RecordingProgress) -> any Error {
            let error: any Error = switch recorder.status {
            case .failed(.device(let error)): DeviceFailure(error: error)
            case .failed(.file(let error)): error
            case .failed(let error): error
            default: progress.encodeError ?? AudioFileError(
                path: recorder.url.path, reason: .writeFailed("the recording ended without finishing its file"))
            }
            // A full store, at the start or on the way, is said with the room left and what a minute takes.
            guard let file = error as? AudioFileError, file.reason == .noSpace else { return error }
            return SpaceFailure.recording(recorder.settings, in: recorder.url.deletingLastPathComponent().path)
        }
    }
}
