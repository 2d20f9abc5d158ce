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
            abstract: "Record a memo from an input device.",
            discussion: """
                Records until q, Ctrl-C, SIGTERM or SIGHUP (the terminal closed), or for --duration seconds; \
                either way the file and the memo are finished, and the exit code is 0. Without --preset or \
                --format the memo is 16-bit mono WAV at 48 kHz. On a terminal a live meter shows each \
                channel's level, the elapsed time and the file size; otherwise a plain line of levels every \
                second. When standard input is a terminal, keys act: space pauses and resumes (nothing of \
                the pause is recorded), q or Enter stops; Ctrl-Z pauses too, until fg. A recording whose \
                process is killed keeps what reached the disk and is listed as recovered. --enhance cleans up \
                speech as it is recorded: noise suppressed, level brought to about -19 dBFS (webrtc-audio-processing); \
                the meter shows the input as it comes.
                """)

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "The memo's title (default: “Memo” and the date and time); one that starts with '-' too, as --title=-x.",
            valueName: "title"))
        var title: String?

        @OptionGroup(title: "Encoding")
        var encoding: EncodingOptions

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
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let ticket = try store.beginRecording(title: title ?? "Memo \(Describe.date(Date()))", settings: settings)
            let live = LiveMeter(hidden: noMeter || json, json: false, plainInterval: Self.plainInterval)
            defer { live.finish() }
            // Keys come from the live display's terminal or, when nothing is drawn there (--no-meter, --json, output
            // to a pipe), from standard input alone when it is a terminal.
            let keyboard = live.display ?? TerminalDisplay(drawing: false)
            defer { keyboard?.finish() }
            IOBufferChoice.apply()
            let recorder = try AudioRecorder(url: ticket.fileURL, settings: ticket.settings, metadata: ticket.metadata)
            recorder.currentDevice = capture.device
            recorder.isMeteringEnabled = live.isShown
            recorder.speechEnhancement = enhance ? SpeechEnhancement() : nil
            let progress = RecordingProgress(recorder) { wakes.continuation.yield() }
            let keyPause = KeyPause()
            let notices = SessionNotices(
                recording: true, devices: [capture.device], keys: false, keyPause: keyPause, display: live.display, printing: !json)
            defer { withExtendedLifetime(notices) {} }
            guard recorder.prepareToRecord(), capture.duration.map({ recorder.record(forDuration: $0) }) ?? recorder.record() else {
                recorder.deleteRecording()
                throw Self.failure(of: recorder, progress)
            }
            if case .plain = live.style {
                print("Recording “\(ticket.memo.title.terminalSafe)” as \(ticket.memo.id); \(keyboard?.takesKeys == true ? "q or " : "")Ctrl-C stops.")
                fflush(nil)
            }
            let shownTitle = ticket.memo.title.terminalSafe
            let path = ticket.fileURL.path
            // q or Enter on the terminal: stop as Ctrl-C does; space pauses and resumes.
            let stopKey = Latch()
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
                    default: break
                    }
                }
            } : nil
            defer { keys?.cancel() }
            if !live.isShown {
                for await _ in wakes.stream {
                    let isStopping = stop.received != nil || stopKey.isSet
                    if isStopping { recorder.stop() }
                    if isStopping || progress.hasFinished { break }
                }
            }
            while !progress.hasFinished {
                if stop.received != nil || stopKey.isSet {
                    recorder.stop()
                    break
                }
                guard try await live.nextTick(), !progress.hasFinished else { continue }
                recorder.updateMeters()
                let channels = 0..<settings.channelCount
                let levels = AudioLevels(
                    peak: channels.map { Double(recorder.peakPower(forChannel: $0)) },
                    average: channels.map { Double(recorder.averagePower(forChannel: $0)) })
                let size = FileManager.default.sizeOfItem(atPath: path) ?? 0
                let elapsed = recorder.currentTime
                let head = recorder.isRecording ? "● REC  " : "⏸ PAUSED  "
                try live.show(levels, elapsed: elapsed, bytes: size, status: MeterLine.status(head, title: shownTitle, elapsed: elapsed, bytes: size))
            }
            live.finish()
            keyboard?.finish()
            await progress.waitUntilFinished()
            guard let summary = recorder.summary else { throw Self.failure(of: recorder, progress) }
            let memo = try store.finishRecording(ticket, summary: summary)
            if json {
                print(try MemoJSON.line(MemoJSON(memo, in: store)))
            } else {
                print("Recorded “\(memo.title.terminalSafe)” as \(memo.id): \(Describe.duration(memo.duration)), "
                    + "\(Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels)), "
                    + "\(Describe.size(memo.sizeBytes)), peak \(Describe.levels(memo.peakDBFS))")
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
