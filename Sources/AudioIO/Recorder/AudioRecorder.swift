import FoundationEssentials
import Synchronization
import SystemPackage

/// Records from an ALSA capture device into a WAV, CAF, Opus or M4A (AAC-LC) file, with the semantics of
/// `AVAudioRecorder`, and marks points of it (``addMarker(_:)``).
///
/// ```swift
/// let recorder = try AudioRecorder(url: url, settings: AudioSettings(format: .caf, channelCount: 2))
/// recorder.isMeteringEnabled = true
/// recorder.record(forDuration: 30)      // stops by itself after exactly 30 s of audio
/// ```
///
/// ``prepareToRecord()`` creates the file and opens the device, so that ``record()`` starts with the next
/// device period; `record()` prepares implicitly. ``pause()`` keeps the file open, and `record()` resumes
/// it; ``stop()`` finishes the file and returns once it is complete on the disk. Recorders on the same
/// device share one capture stream and its clock, so ``record(atTime:)`` with one device time starts
/// several on the same frame.
///
/// The device is opened in the recording's own sample format, channel count and rate whenever it takes them,
/// as `arecord -f S16_LE -c 1 -r 48000` does, so that a 16- or 24-bit recording holds the device's samples bit
/// for bit; a device that does not, or one another recorder opened first in another format, is read as it is
/// and converted. The capture thread allocates nothing and never touches the disk; a writer thread maps
/// channels, resamples with libsoxr when the device's rate differs from the file's, and writes. Input the device or the writer could not keep (an overrun) is filled
/// with silence of the same length, so the recording keeps its timeline, and reported as
/// ``Event/overrun(lostTime:)``. WAV and CAF headers are rewritten after every write, Opus is written
/// page by page and M4A fragment by fragment, so a process killed mid-recording leaves a file missing at most the last
/// moments (an M4A one made whole by ``AudioFile/repairCutRecording(at:)``). Encoding (Opus, AAC) happens on the writer
/// thread, never on the capture thread.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioRecorder: @unchecked Sendable {
    /// Whether the recorder can record: unknown until prepared, then ready, or failed with the reason.
    public enum Status: Equatable, Sendable {
        /// Not prepared yet.
        case unknown
        /// Prepared: the file is created and the device open.
        case readyToRecord
        /// Preparing failed, or the device failed while recording; the payload says why.
        case failed(AudioRecorderError)
    }

    /// What ``events()`` delivers, in the order it happens.
    public enum Event: Equatable, Sendable {
        /// ``status`` changed.
        case statusChanged(Status)
        /// The first frame was captured (after `record`, or at the time `record(atTime:)` named).
        case started
        /// Input was lost — the device overran, or the disk fell more than the ring's two seconds (eight
        /// from an ``EarlyCapture``) behind — and `lostTime` seconds of silence stand in for it in the file.
        case overrun(lostTime: TimeInterval)
        /// The recording ended and the file is finished: stopped or its duration reached (true), or cut
        /// short by a write or device failure (false).
        case finishedRecording(successfully: Bool)
        /// Writing the file failed (disk full, I/O error); what was written before stays in the file.
        case encodeError(AudioFileError)
    }

    /// Seconds of audio the ring between the capture and the writer thread holds.
    package static let ringSeconds = 2.0

    /// Seconds ``record()`` waits at most for the device thread to start capturing.
    static let captureStartWait = 0.25

    /// The file recorded into.
    public let url: URL
    /// How the file is written.
    public let settings: AudioSettings
    /// Title, creation date, artist, album and comment written into the file, and markers to start with.
    public let metadata: AudioMetadata
    /// Mode bits of the file (the process umask applies).
    public let permissions: FilePermissions

    let state = Mutex(State())

    /// Receives finish and encode-error events (weakly held).
    public var delegate: (any AudioRecorderDelegate)? {
        get { state.withLock { $0.delegate.value } }
        set { state.withLock { $0.delegate = WeakRecorderDelegate(value: newValue) } }
    }

    /// Creates a recorder that will write `url` as `settings` say; nothing is created or opened yet.
    ///
    /// - Parameters:
    ///   - url: The file to record into; an existing file there is replaced when recording is prepared.
    ///   - settings: Format, rate, channels and bit depth or bit rate of the file.
    ///   - metadata: Title, creation date, artist, album and comment to store in the file.
    ///   - permissions: Mode bits of the file; by default `0o600`, as recordings are personal data.
    /// - Throws: ``AudioSettingsError`` when the settings cannot be written.
    public init(
        url: URL, settings: AudioSettings, metadata: AudioMetadata = AudioMetadata(),
        permissions: FilePermissions = [.ownerReadWrite]
    ) throws(AudioSettingsError) {
        try settings.validate()
        self.url = url
        self.settings = settings
        self.metadata = metadata
        self.permissions = permissions
    }

    /// Creates a recorder that will write `url` with the settings of `preset`.
    public convenience init(
        url: URL, preset: AudioPreset, metadata: AudioMetadata = AudioMetadata(),
        permissions: FilePermissions = [.ownerReadWrite]
    ) throws(AudioSettingsError) {
        try self.init(url: url, settings: preset.settings, metadata: metadata, permissions: permissions)
    }

    deinit {
        // Finishes the file; nobody is left to tell.
        var events: [Event] = []
        state.withLock { finish(&$0, &events) }
    }

    /// The ALSA PCM to record from, e.g. "default", "hw:1", "pulse"; `nil` means "default". Takes effect
    /// at the next ``prepareToRecord()``.
    public var currentDevice: String? {
        get { state.withLock { $0.deviceName } }
        set { state.withLock { $0.deviceName = newValue } }
    }

    /// How speech is cleaned up as it is recorded — noise suppressed, gain adjusted (see ``SpeechEnhancement``) — or
    /// `nil` (the default) to record what the device gives. Set it before ``prepareToRecord()``. The work is done on
    /// the writer thread, never the capture thread; the meters show the input as it comes, ``summary`` the levels of
    /// the file. Mono and stereo recordings only: more channels fail to prepare.
    public var speechEnhancement: SpeechEnhancement? {
        get { state.withLock { $0.speechEnhancement } }
        set { state.withLock { $0.speechEnhancement = newValue } }
    }

    /// Whether it is recording now (false while paused), including while waiting for a scheduled start.
    public var isRecording: Bool { state.withLock { $0.isRecording } }

    /// Ready to record, failed, or not yet prepared.
    public var status: Status { state.withLock { $0.status } }

    /// Seconds recorded so far into the current file (paused time not counted, lost input counted);
    /// 0 when no recording is prepared.
    public var currentTime: TimeInterval {
        state.withLock { state in
            guard let tap = state.tap, let engine = state.engine else { return 0 }
            return Double(tap.deliveredFrames.load(ordering: .acquiring)) / engine.sampleRate
        }
    }

    /// Seconds on the input device's clock, which runs while the device exists; the time base of
    /// ``record(atTime:)``. Opens the device if nothing records from it yet.
    public var deviceCurrentTime: TimeInterval {
        let name = state.withLock { $0.deviceName } ?? AudioSession.shared.inputForNewRecorders
        return (try? StreamEngine.engine(for: name, direction: .capture, request: settings.captureRequest).deviceCurrentTime) ?? 0
    }

    /// What the last finished recording wrote: frames, rate, channels, whole-file levels (measured while
    /// recording, before Opus encoding) and file size; `nil` until a recording has finished.
    public var summary: AudioFileSummary? { state.withLock { $0.summary } }
}

/// A weak reference to the delegate, so that the state stays a value.
struct WeakRecorderDelegate {
    weak var value: (any AudioRecorderDelegate)?
}
