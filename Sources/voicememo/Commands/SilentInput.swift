import Synchronization

/// Whether a recording has captured nothing but silence so far: a muted input, or the wrong device (a sink's monitor
/// with nothing playing, ALSA's `null`). `record` says so on its status line while it records and in a warning once
/// it ends, so that a memo of nothing is not found out days later.
final class SilentInput: Sendable {
    /// Seconds of silence before it is said: a pause before the first word is no sign of a muted input.
    static let noticeAfter: Double = 3
    /// The loudest peak, in dBFS, that still counts as silence: below any microphone's own noise, at its lowest gain.
    static let threshold: Double = -80
    /// What the status line adds while the recording is silent.
    static let statusField = "silent: input muted?"

    /// The loudest peak of each channel so far, in dBFS.
    private let loudest = Mutex<[Double]>([])

    /// Takes the peaks of the input's last reading, one per channel.
    func note(peaks: [Double]) {
        loudest.withLock { loudest in
            loudest = loudest.isEmpty ? peaks : zip(loudest, peaks).map { max($0, $1) }
        }
    }

    /// Whether the input, `seconds` into the recording, has been silent all along.
    func isSilent(after seconds: Double) -> Bool {
        Self.isSilent(peaks: loudest.withLock { $0 }, seconds: seconds)
    }

    /// Whether a recording of `seconds` whose channels peaked at `peaks` (dBFS) is silence worth a word.
    static func isSilent(peaks: [Double], seconds: Double) -> Bool {
        seconds >= noticeAfter && !peaks.isEmpty && peaks.allSatisfy { !($0 >= threshold) }
    }

    /// The warning for a memo that is silent, whose channels peaked at `peaks`.
    static func warning(peaks: [Double]) -> String {
        "the recording is silent (peak \(Describe.levels(peaks))): is the input muted, or the wrong device? "
            + "'voicememo meter --device NAME' shows an input's level, 'voicememo devices' lists them"
    }
}
