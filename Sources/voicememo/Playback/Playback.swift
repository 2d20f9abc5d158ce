import AudioIO
import FoundationEssentials

/// What `voicememo play` plays, as its keys, status line, sleep timer and remote controls act on it: memos started
/// together, or one alone (``PlayerGroup``), or memos one after another (``PlayQueue``).
///
/// **Thread safety**: every member may be used from any thread.
protocol Playback: AnyObject, Sendable {
    /// What the status line and the remote controls call what plays: the memo heard, or the titles of memos heard
    /// together.
    var title: String { get }
    /// Where the memo heard stands among those played in turn, e.g. the 2nd of 3; nil for memos played together.
    var place: (number: Int, count: Int)? { get }
    var isPlaying: Bool { get }
    /// Seconds into the memo heard (the first of memos played together).
    var currentTime: TimeInterval { get }
    /// The length of the memo heard, in seconds.
    var duration: TimeInterval { get }
    var rate: Float { get }
    var volume: Float { get }
    /// The ALSA devices played on.
    var devices: Set<String> { get }
    /// What is downloaded of the address heard, in seconds into it; nil when what plays is not an address.
    var loadedTimeRanges: [Range<TimeInterval>]? { get }
    /// Whether playback waits for a download to catch up.
    var isBuffering: Bool { get }
    /// The memo heard (the first of memos played together), whose waveform is drawn.
    var item: PlayItem? { get }
    /// Whether pauses are shortened (see `AudioPlayer.skipsSilence`).
    var skipsSilence: Bool { get }
    /// Seconds of the memos left out as silence so far.
    var skippedSilenceDuration: TimeInterval { get }
    /// The markers of the memo heard (the first of memos played together), in seconds, in order: where `[` and `]` go.
    var markerTimes: [TimeInterval] { get }

    /// Starts playing, and calls `report` once it has ended: played to its end, or failed.
    ///
    /// - Throws: ``AudioPlayerFailure`` when it cannot start.
    func start(reporting report: @escaping @Sendable (PlaybackOutcome) -> Void) throws
    /// Stops for good, letting go of the device.
    func stop()
    /// Resumes; false when the device cannot be opened.
    @discardableResult func play() -> Bool
    func pause()
    /// Moves to `time` seconds into the memo heard (clamped to it), playing on if it was playing.
    func seek(to time: TimeInterval)
    /// Sets the speed, 0.25…4, by the pitch algorithm `play --pitch` chose.
    func setRate(_ rate: Float)
    /// Moves the volume to `volume` over `fadeDuration` seconds.
    func setVolume(_ volume: Float, fadeDuration: TimeInterval)
    /// Shortens pauses, or stops shortening them; nothing for several memos played together, which it would set apart.
    func setSkipsSilence(_ skips: Bool)
    /// Goes on with the next memo in turn; nothing after the last, or for memos played together.
    func next()
    /// Goes back to the memo played before; nothing on the first, or for memos played together.
    func previous()
    /// The levels heard since the last reading, per channel of the memos.
    func levels() -> AudioLevels
}

/// How a ``Playback`` ended by itself.
enum PlaybackOutcome: Sendable {
    /// Everything played to its end.
    case finished
    /// Playing failed, for the reason in `status`.
    case failed(AudioPlayer.Status)
}

extension Playback {
    /// Moves by `seconds` (back when negative), within the memo heard.
    func skip(by seconds: TimeInterval) {
        seek(to: min(max(currentTime + seconds, 0), duration))
    }
}
