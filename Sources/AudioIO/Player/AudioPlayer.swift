import Atomics
import Dispatch
import FoundationEssentials
import Synchronization

/// Plays an audio file or in-memory audio on an ALSA device, with the semantics of `AVAudioPlayer`.
///
/// ```swift
/// let player = try AudioPlayer(contentsOf: url)
/// player.numberOfLoops = 1          // plays twice, gaplessly
/// player.pan = -0.5                 // towards the left
/// player.play()
/// ```
///
/// ``prepareToPlay()`` opens the file and the device and fills the buffer, so that ``play()`` starts with
/// the next device period; `play()` prepares implicitly. ``BasePlayer/pause()`` keeps the position and the prepared
/// state; ``stop()`` releases them and keeps ``BasePlayer/currentTime``. Players on the same device are mixed into one
/// stream, so ``play(atTime:)`` with one device time starts several players on the same frame.
///
/// Files at another rate than the device are resampled with libsoxr; with ``enableRate`` set before
/// preparing, ``BasePlayer/rate`` changes speed, 0.25…4, by ``BasePlayer/audioTimePitchAlgorithm``: pitch kept (SoundTouch) or following
/// the speed (libsoxr).
///
/// An `http` or `https` address plays while it downloads, as `AVPlayer` plays a remote item: the player is made at
/// once, with ``BasePlayer/status`` unknown, and ``BasePlayer/status`` turns ready once the file's header has downloaded (``duration`` and
/// ``BasePlayer/numberOfChannels`` are known from then on), or failed with the reason (a 404, a host not found, not audio).
/// ``BasePlayer/loadedTimeRanges``, ``BasePlayer/isPlaybackBufferEmpty`` and ``BasePlayer/isPlaybackLikelyToKeepUp`` tell what is downloaded; when the
/// download falls behind, playback stalls (``BasePlayer/Event/playbackStalled``) and goes on by itself once enough is buffered
/// (``BasePlayer/Event/playbackResumed``). Seeking to a time not yet downloaded asks for that part at once. What was downloaded
/// is kept in a ``RemoteCache``: playing it again downloads nothing.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioPlayer: BasePlayer, @unchecked Sendable {
    /// The file or address played, or `nil` for audio played from data.
    public var url: URL? { item.url }
    /// The audio played, for a player made from data.
    public var data: Data? { item.data }
    /// Length in seconds; 0 for an address until its header has downloaded (``BasePlayer/status`` ready).
    public var duration: TimeInterval { item.facts.withLock { $0.duration } }
    /// The length of the file, in seconds: ``duration``.
    public override var playbackDuration: TimeInterval { duration }

    /// What is played: ``replaceCurrentItem(with:options:cache:)`` changes it, under the state's lock (taken before this one).
    let current: Mutex<PlayedFile>
    /// What is played now.
    var item: PlayedFile { current.withLock { $0 } }
    /// The file the decoder opens (an address's is read through ``remote``).
    var source: URL { item.source }
    /// The download of an `http` or `https` address.
    var remote: RemoteAsset? { item.remote }
    /// ``numberOfLoops``, where the decoder thread reads it at the end of each pass without the lock.
    let loops = ManagedAtomic<Int>(0)
    private let weakDelegate = Mutex(WeakDelegate())

    /// Receives the events (weakly held): finish, decode errors, time control status, rate and time jumps.
    public var delegate: (any AudioPlayerDelegate)? {
        get { weakDelegate.withLock { $0.value } }
        set { weakDelegate.withLock { $0 = WeakDelegate(value: newValue) } }
    }

    /// Creates a player for the file at `url`, reading its header now; or for an `http` or `https` address, starting
    /// its download (``BasePlayer/status`` turns ready or failed once the header is here).
    ///
    /// - Parameters:
    ///   - url: A file's URL, or an `http` or `https` address.
    ///   - options: The header fields and user agent of an address's requests, as `AVURLAsset`'s options; unused for
    ///     a file.
    ///   - cache: Where an address's bytes are kept, and found when it is played again; unused for a file.
    /// - Throws: ``AudioFileError`` when the file cannot be read as audio; for an address, only when it is not one
    ///   this library downloads or a field of `options` cannot be sent (a failed download is reported by
    ///   ``BasePlayer/status``).
    public convenience init(
        contentsOf url: URL, options: AudioAsset.Options = AudioAsset.Options(), cache: RemoteCache = .shared
    ) throws(AudioFileError) {
        self.init(item: try PlayedFile.open(url, options: options, cache: cache))
    }

    /// Creates a player for audio held in memory: the bytes of any file format ``AudioFile`` reads.
    ///
    /// - Throws: ``AudioFileError`` when the bytes are not audio.
    public convenience init(data: Data) throws(AudioFileError) {
        self.init(item: try PlayedFile(data: data))
    }

    /// A player of `item`; an address's header is read on a thread of its own.
    private init(item: PlayedFile) {
        current = Mutex(item)
        super.init(state: State())
        if item.remote != nil { startLoading(item) }
    }

    /// Passes beyond the first: 0 plays once, n plays n + 1 times, any negative number loops until
    /// stopped. Loops are gapless. May be changed while playing. A seek, or a device lost and back, does not
    /// start the count over; ``stop()`` and playing to the end do.
    public var numberOfLoops: Int {
        get { loops.load(ordering: .relaxed) }
        set { loops.store(newValue, ordering: .relaxed) }
    }

    /// A fixed gain in decibels applied before ``BasePlayer/volume``, −96…+48 (values outside are clamped), 0 by default: what
    /// ReplayGain or an Opus file's output gain apply, and what brings a recording to a loudness
    /// (``AudioLoudness/normalizationGain(toLoudness:truePeakLimit:)``). Unlike ``BasePlayer/volume`` it may raise the level: a
    /// gain that takes samples past full scale clips them.
    public var gain: Float {
        get { state.withLock { $0.controls.gain } }
        set {
            withState { state, events in
                state.controls.setGain(newValue, voice: state.voice)
                restartIfQueuedLong(&state, &events)
            }
        }
    }

    /// Whether ``BasePlayer/rate`` applies; set it before ``prepareToPlay()``.
    public var enableRate: Bool {
        get { state.withLock { $0.controls.enableRate } }
        set { state.withLock { $0.controls.enableRate = newValue } }
    }

    /// Starts or resumes playback with the next device period; for an address, first waits for its header to
    /// download.
    ///
    /// The player follows the shared ``AudioSession``'s policy once it has played: an interruption pauses it (and
    /// resumes it, with ``AudioSession/CategoryOptions/resumeAfterInterruption``), and unplugging the headphones, or
    /// losing the device, pauses it where it was.
    ///
    /// - Returns: Whether playback started; on false, ``BasePlayer/status`` holds the reason.
    @discardableResult
    public override func play() -> Bool {
        awaitLoad()
        return super.play()
    }

    // MARK: Shape

    override func prepare(_ state: inout State, _ events: inout [Event]) -> Preparation {
        prepareFile(&state, &events) ? .ready : .failed
    }

    override func release(_ state: inout State) {
        if let voice = state.voice, voice.hasStarted.load(ordering: .acquiring) {
            state.file.passesHeard = voice.currentItem.load(ordering: .acquiring)
        }
        state.release()
    }

    override func seekTarget(_ time: TimeInterval, in state: State) -> TimeInterval? {
        if duration.isFinite { return min(max(time, 0), duration) }
        // A station's live stream plays as it comes: nowhere to seek to. A live playlist seeks in its window, which
        // its file, reading the playlist afresh, keeps the seek to.
        return item.liveTimeline.window == nil ? nil : max(time, 0)
    }

    override func resumesAfresh(in state: State) -> Bool {
        duration == .infinity && item.liveTimeline.window != nil
    }

    override func download(in state: State) -> ItemDownload {
        guard let remote else { return .file(duration: duration) }
        return .address(remote.progress, duration: duration)
    }

    override func meteredChannels(in state: State) -> Int { item.facts.withLock { $0.channels } }

    override func tellDelegate(_ events: [Event]) { tell(events) }

    override func voiceDidStart(_ voice: Voice) { fileVoiceDidStart(voice) }

    override func voiceDidFinish(_ voice: Voice) { fileVoiceDidFinish(voice) }

    override func voiceDidTick(_ voice: Voice, _ state: inout State, _ events: inout [Event]) {
        // A loop starting over is a time jump.
        let pass = voice.currentItem.load(ordering: .acquiring)
        if state.voice === voice, pass > state.file.passSeen {
            state.file.passSeen = pass
            events.append(.timeJumped)
        }
    }

    /// Seconds on the output device's clock, which runs while the device exists; the time base of
    /// ``play(atTime:)``. Opens the device if no player has yet.
    public var deviceCurrentTime: TimeInterval {
        let name = state.withLock { $0.deviceName } ?? AudioSession.shared.outputForNewPlayers
        return (try? StreamEngine.engine(for: name, direction: .playback, request: AudioSession.shared.playbackRequest).deviceCurrentTime) ?? 0
    }
}

/// A weak reference to the delegate.
struct WeakDelegate {
    weak var value: (any AudioPlayerDelegate)?
}
