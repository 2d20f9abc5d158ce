import AudioIO
import Synchronization

/// What a recording has reported, gathered from its events as they come.
final class RecordingProgress: Sendable {
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
