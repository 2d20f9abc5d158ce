import ArgumentParser
import AudioIO
import FoundationEssentials
import Glibc
import MemoStore
import Synchronization
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

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "The memo's title (default: “Memo” and the date and time); one that starts with '-' too, as --title=-x.",
            valueName: "title"))
        var title: String?

        @OptionGroup(title: "Encoding")
        var encoding: EncodingOptions

        @OptionGroup(title: "Tags")
        var tags: TagOptions

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
            let settings = try encoding.recordingSettings()
            if enhance, settings.channelCount > 2 {
                throw ValidationError("--enhance takes mono or stereo, not \(settings.channelCount) channels; record with --channels 1 or 2.")
            }
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
            let ticket = try store.beginRecording(
                title: title ?? "Memo \(Describe.date(Date()))", settings: settings, artist: tags.artist, album: tags.album,
                comment: tags.comment)
            let recorder = try AudioRecorder(url: ticket.fileURL, settings: ticket.settings, metadata: ticket.metadata)
            recorder.currentDevice = capture.device
            recorder.isMeteringEnabled = live.isShown
            recorder.speechEnhancement = enhance ? SpeechEnhancement() : nil
            let progress = RecordingProgress(recorder) { wakes.continuation.yield() }
            let keyPause = KeyPause()
            let notices = SessionNotices(
                recording: true, devices: [capture.device], keys: false, keyPause: keyPause, display: live.display, printing: !json)
            defer { withExtendedLifetime(notices) {} }
            let started = if let early { recorder.record(from: early) } else {
                capture.duration.map { recorder.record(forDuration: $0) } ?? recorder.record()
            }
            // A device another program holds is waited for: the session starts the recording once it is free.
            guard started || recorder.status.isWaitingForDevice else {
                recorder.deleteRecording()
                throw Self.failure(of: recorder, progress)
            }
            if case .plain = live.style {
                print("Recording “\(ticket.memo.title.terminalSafe)” as \(ticket.memo.id); \(keyboard?.takesKeys == true ? "q or " : "")Ctrl-C stops.")
                fflush(nil)
            }
            let shownTitle = ticket.memo.title.terminalSafe
            let path = ticket.fileURL.path
            // q or Enter on the terminal: stop as Ctrl-C does; space pauses and resumes; m marks.
            let stopKey = Latch()
            let marks = MarkerFlash()
            // Off the live display a marker gets a line of its own.
            let printsMarkers = live.display == nil && !json
            let keys = keyboard?.takesKeys == true ? Task {
                for await key in Key.typed() {
                    switch key {
                    case .space:
                        if recorder.isRecording {
                            keyPause.set(true)
                            recorder.pause()
                        } else if !progress.hasFinished, recorder.summary == nil, !stopKey.isSet, stop.received == nil {
                            // Only a paused recording resumes: record() after the end would start the file anew.
                            keyPause.set(false)
                            recorder.record()
                        }
                    case .quit, .enter:
                        stopKey.set()
                        wakes.continuation.yield()
                    case .mark:
                        guard let marker = recorder.addMarker() else { break }
                        // In the index at once: a recording whose process dies keeps its markers. Should the store refuse,
                        // the file still gets them.
                        try? store.noteMarkers(recorder.markers, of: ticket)
                        marks.dropped(recorder.markers.count)
                        if printsMarkers {
                            print("Marker \(recorder.markers.count) at \(Describe.duration(marker.time(atSampleRate: settings.sampleRate)))")
                            fflush(nil)
                        }
                    default: break
                    }
                }
            } : nil
            defer { keys?.cancel() }
            // The meter draws on a thread of its own; this task waits for a stop or the recording's end.
            let channels = 0..<settings.channelCount
            let ticker = live.isShown ? live.start { live in
                guard !progress.hasFinished else { return }
                recorder.updateMeters()
                let levels = AudioLevels(
                    peak: channels.map { Double(recorder.peakPower(forChannel: $0)) },
                    average: channels.map { Double(recorder.averagePower(forChannel: $0)) })
                let size = FileManager.default.sizeOfItem(atPath: path) ?? 0
                let elapsed = recorder.currentTime
                let head = marks.recent.map { "▼ MARKER \($0)  " }
                    ?? (recorder.isRecording ? "● REC  " : notices.waitsForDevice ? MeterLine.waitingForDevice : "⏸ PAUSED  ")
                // Only JSON lines throw, and record prints none.
                try? live.show(levels, elapsed: elapsed, bytes: size, status: MeterLine.status(head, title: shownTitle, elapsed: elapsed, bytes: size))
            } : nil
            for await _ in wakes.stream {
                let isStopping = stop.received != nil || stopKey.isSet
                if isStopping { recorder.stop() }
                if isStopping || progress.hasFinished { break }
            }
            ticker?.stop()
            live.finish()
            keyboard?.finish()
            await progress.waitUntilFinished()
            guard let summary = recorder.summary else { throw Self.failure(of: recorder, progress) }
            let memo = try store.finishRecording(ticket, summary: summary, markers: recorder.markers)
            if json {
                print(try MemoJSON.line(MemoJSON(memo, in: store)))
            } else {
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
            if let warning = progress.overrunWarning {
                _ = try? FileDescriptor.standardError.writeAll("voicememo: warning: \(warning)\n".utf8)
            }
            // Cut short by a write or device failure: the memo keeps what was written, and the run fails.
            if !progress.succeeded { throw Self.failure(of: recorder, progress) }
        }

        /// Why the recording failed, as the error to report.
        private static func failure(of recorder: AudioRecorder, _ progress: RecordingProgress) -> any Error {
            switch recorder.status {
            case .failed(.device(let error)): DeviceFailure(error: error)
            case .failed(.file(let error)): error
            case .failed(let error): error
            default: progress.encodeError ?? AudioFileError(
                path: recorder.url.path, reason: .writeFailed("the recording ended without finishing its file"))
            }
        }
    }
}

/// What a recording has reported, gathered from its events as they come.
private final class RecordingProgress: Sendable {
    private struct Report {
        var successfully: Bool?
        var encodeError: AudioFileError?
        var overruns = 0
        var lostTime = 0.0
    }

    /// The report, shared with the listener.
    private final class Shared: Sendable {
        let report = Mutex(Report())
    }

    private let shared: Shared
    private let listener: Task<Void, Never>

    /// Starts listening to `recorder`'s events, until it reports the recording finished, then calls `onFinish`;
    /// make it before the recording starts.
    init(_ recorder: AudioRecorder, onFinish: @escaping @Sendable () -> Void) {
        let events = recorder.events()
        let shared = Shared()
        self.shared = shared
        listener = Task {
            for await event in events {
                let isLast = shared.report.withLock { report in
                    switch event {
                    case .finishedRecording(let successfully): report.successfully = successfully
                    case .encodeError(let error): report.encodeError = error
                    case .overrun(let lostTime):
                        report.overruns += 1
                        report.lostTime += lostTime
                    case .started, .statusChanged: break
                    }
                    return report.successfully != nil
                }
                if isLast {
                    onFinish()
                    return
                }
            }
        }
    }

    /// Whether the recording has finished (stopped, reached its duration, or failed).
    var hasFinished: Bool { shared.report.withLock { $0.successfully != nil } }

    /// Waits until the finish has been reported (``AudioRecorder/stop()`` reports it before it returns).
    func waitUntilFinished() async { await listener.value }

    /// Whether the recording finished without a write or device failure.
    var succeeded: Bool { shared.report.withLock { $0.successfully == true } }

    /// The write failure that cut the recording short, if one did.
    var encodeError: AudioFileError? { shared.report.withLock { $0.encodeError } }

    /// What to tell the user about lost input, if any was lost.
    var overrunWarning: String? {
        shared.report.withLock { report in
            guard report.overruns > 0 else { return nil }
            return "the input overran \(report.overruns) time\(report.overruns == 1 ? "" : "s"); "
                + Describe.number(report.lostTime, "%.2f") + " s of silence stands in the memo for what was lost"
        }
    }
}

/// The marker the `m` key dropped last, for the status line to show for a moment.
///
/// **Thread safety**: set by the task that reads the keys, read by the loop that draws.
private final class MarkerFlash: Sendable {
    /// Seconds the status line shows a new marker.
    static let duration: Duration = .seconds(1.5)

    private let last = Mutex<(number: Int, at: ContinuousClock.Instant)?>(nil)

    /// Marker `number` was dropped just now.
    func dropped(_ number: Int) {
        last.withLock { $0 = (number, .now) }
    }

    /// The number of the marker dropped within ``duration``, if one was.
    var recent: Int? {
        last.withLock { last in
            guard let last, ContinuousClock.now - last.at < Self.duration else { return nil }
            return last.number
        }
    }
}
