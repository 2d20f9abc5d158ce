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
/// the next device period; `play()` prepares implicitly. ``pause()`` keeps the position and the prepared
/// state; ``stop()`` releases them and keeps ``currentTime``. Players on the same device are mixed into one
/// stream, so ``play(atTime:)`` with one device time starts several players on the same frame.
///
/// Files at another rate than the device are resampled with libsoxr; with ``enableRate`` set before
/// preparing, ``rate`` changes speed, 0.25…4, by ``audioTimePitchAlgorithm``: pitch kept (SoundTouch) or following
/// the speed (libsoxr).
///
/// An `http` or `https` address plays while it downloads, as `AVPlayer` plays a remote item: the player is made at
/// once, with ``status`` unknown, and ``status`` turns ready once the file's header has downloaded (``duration`` and
/// ``numberOfChannels`` are known from then on), or failed with the reason (a 404, a host not found, not audio).
/// ``loadedTimeRanges``, ``isPlaybackBufferEmpty`` and ``isPlaybackLikelyToKeepUp`` tell what is downloaded; when the
/// download falls behind, playback stalls (``Event/playbackStalled``) and goes on by itself once enough is buffered
/// (``Event/playbackResumed``). Seeking to a time not yet downloaded asks for that part at once. What was downloaded
/// is kept in a ``RemoteCache``: playing it again downloads nothing.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioPlayer: @unchecked Sendable {
    /// Whether the player can play: unknown until prepared, then ready, or failed with the reason.
    public enum Status: Equatable, Sendable {
        /// Not prepared yet.
        case unknown
        /// Prepared: the file is open and the device too.
        case readyToPlay
        /// Preparing failed, or the device failed while playing; the payload says why.
        case failed(AudioPlayerError)
    }

    /// What ``events()`` delivers, in the order it happens. What one call changes comes in this order: the status,
    /// ``timeControlStatus`` and ``rate`` as they now are, what happened (a time jump, a start), then the end of
    /// playback.
    public enum Event: Equatable, Sendable {
        /// ``status`` changed.
        case statusChanged(Status)
        /// ``timeControlStatus`` changed: playing, paused, or waiting for a scheduled start.
        case timeControlStatusChanged(TimeControlStatus)
        /// ``rate`` changed (to the value given, clamped).
        case rateChanged(Float)
        /// The position moved other than by playing on, as `AVPlayerItem.timeJumpedNotification` tells: a seek (every
        /// one, also while paused) or a loop starting over. ``currentTime`` is where it went.
        case timeJumped
        /// The first frame was mixed into the device stream, once per playing from the start or from where ``stop()``
        /// left it: a pause and resume, a seek or a change of device goes on playing and sends no second one.
        case started
        /// Playback ended: at the end of the last loop (true) or early on a failure (false).
        case finishedPlaying(successfully: Bool)
        /// Reading the file failed part-way.
        case decodeError(AudioFileError)
        /// An address's download fell behind: the buffer ran empty, and the output is paused until enough is buffered.
        /// ``isPlaying`` stays true: playback goes on by itself. Only on a device with a clock: one without (ALSA's
        /// `null`, an ``OfflineRenderer``) waits for the audio instead, and never runs dry.
        case playbackStalled
        /// Enough is buffered again after ``playbackStalled``: playback goes on where it stalled.
        case playbackResumed
    }

    /// The file or address played, or `nil` for audio played from data.
    public var url: URL? { item.url }
    /// The audio played, for a player made from data.
    public var data: Data? { item.data }
    /// Length in seconds; 0 for an address until its header has downloaded (``status`` ready).
    public var duration: TimeInterval { item.facts.withLock { $0.duration } }
    /// Channels in the file; 0 for an address until its header has downloaded.
    public var numberOfChannels: Int { item.facts.withLock { $0.channels } }

    /// What is played: ``replaceCurrentItem(with:cache:)`` changes it, under the state's lock (taken before this one).
    let current: Mutex<PlayerItem>
    /// What is played now.
    var item: PlayerItem { current.withLock { $0 } }
    /// The file the decoder opens (an address's is read through ``remote``).
    var source: URL { item.source }
    /// The download of an `http` or `https` address.
    var remote: RemoteAsset? { item.remote }
    let state = Mutex(State())
    /// ``numberOfLoops``, where the decoder thread reads it at the end of each pass without the lock.
    let loops = ManagedAtomic<Int>(0)

    /// Receives the events (weakly held): finish, decode errors, time control status, rate and time jumps.
    public var delegate: (any AudioPlayerDelegate)? {
        get { state.withLock { $0.delegate.value } }
        set { state.withLock { $0.delegate = WeakDelegate(value: newValue) } }
    }

    /// Creates a player for the file at `url`, reading its header now; or for an `http` or `https` address, starting
    /// its download (``status`` turns ready or failed once the header is here).
    ///
    /// - Parameters:
    ///   - url: A file's URL, or an `http` or `https` address.
    ///   - cache: Where an address's bytes are kept, and found when it is played again; unused for a file.
    /// - Throws: ``AudioFileError`` when the file cannot be read as audio; for an address, only when it is not one
    ///   this library downloads (a failed download is reported by ``status``).
    public convenience init(contentsOf url: URL, cache: RemoteCache = .shared) throws(AudioFileError) {
        self.init(item: try PlayerItem.open(url, cache: cache))
    }

    /// Creates a player for audio held in memory: the bytes of any file format ``AudioFile`` reads.
    ///
    /// - Throws: ``AudioFileError`` when the bytes are not audio.
    public convenience init(data: Data) throws(AudioFileError) {
        self.init(item: try PlayerItem(data: data))
    }

    /// A player of `item`; an address's header is read on a thread of its own.
    private init(item: PlayerItem) {
        current = Mutex(item)
        if item.remote == nil {
            state.withLock { $0.load = .loaded }
        } else {
            startLoading(item)
        }
    }

    deinit {
        state.withLock { $0.release() }
    }

    /// The ALSA PCM to play on, e.g. "default", "hw:1", "pulse"; `nil` means "default". Takes effect at the
    /// next ``prepareToPlay()`` (after ``stop()``).
    public var currentDevice: String? {
        get { state.withLock { $0.deviceName } }
        set { state.withLock { $0.deviceName = newValue } }
    }

    /// Whether it is playing now: true from ``play()`` on, also while a start scheduled with ``play(atTime:)`` waits
    /// for its time; false while paused, stopped, and once playback has finished.
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// Ready to play, failed, or not yet prepared.
    public var status: Status { state.withLock { $0.status } }

    /// Playing, paused, or waiting for the time given to ``play(atTime:)``, as `AVPlayer.timeControlStatus`; each change
    /// is an ``Event/timeControlStatusChanged(_:)``.
    public var timeControlStatus: TimeControlStatus { state.withLock { $0.timeControlStatus } }

    /// Passes beyond the first: 0 plays once, n plays n + 1 times, any negative number loops until
    /// stopped. Loops are gapless. May be changed while playing. A seek, or a device lost and back, does not
    /// start the count over; ``stop()`` and playing to the end do.
    public var numberOfLoops: Int {
        get { loops.load(ordering: .relaxed) }
        set { loops.store(newValue, ordering: .relaxed) }
    }

    /// Linear gain, 0…1 (values outside are clamped), independent of the system volume.
    public var volume: Float {
        get { state.withLock { $0.controls.volume } }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    /// Moves ``volume`` to `volume` linearly over `fadeDuration` seconds (0 = at once). With a long I/O buffer (see
    /// ``AudioSession/preferredIOBufferDuration``), a change at once is heard at once, and a fade starts once what the
    /// device holds queued has played.
    public func setVolume(_ volume: Float, fadeDuration: TimeInterval) {
        withState { state, events in
            state.controls.setVolume(volume, fadeDuration: fadeDuration, voice: state.voice, engine: state.engine)
            if fadeDuration <= 0 { restartIfQueuedLong(&state, &events) }
        }
    }

    /// A fixed gain in decibels applied before ``volume``, −96…+48 (values outside are clamped), 0 by default: what
    /// ReplayGain or an Opus file's output gain apply, and what brings a recording to a loudness
    /// (``AudioLoudness/normalizationGain(toLoudness:truePeakLimit:)``). Unlike ``volume`` it may raise the level: a
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

    /// Balance, −1 (left only) … 0 (both at unity) … +1 (right only): the left channel's gain is
    /// min(1, 1 − pan), the right's min(1, 1 + pan). A mono file plays on both channels.
    public var pan: Float {
        get { state.withLock { $0.controls.pan } }
        set { state.withLock { $0.controls.setPan(newValue, voice: $0.voice) } }
    }

    /// Whether ``rate`` applies; set it before ``prepareToPlay()``.
    public var enableRate: Bool {
        get { state.withLock { $0.controls.enableRate } }
        set { state.withLock { $0.controls.enableRate = newValue } }
    }

    /// Playback speed, 0.25…4 (clamped; `AVAudioPlayer` allows 0.5…2, `AVPlayer` more), changed by
    /// ``audioTimePitchAlgorithm``; applies only with ``enableRate``. A change is an ``Event/rateChanged(_:)``.
    ///
    /// Setting 0 pauses, as it does `AVPlayer`: the speed stays what it was, for ``play()`` to resume at. A value that
    /// is not a number changes nothing; no speed plays backwards (a negative one is clamped to 0.25).
    public var rate: Float {
        get { state.withLock { $0.controls.rate } }
        set {
            withState { state, events in
                if newValue == 0 { return _ = pause(&state, &events) }
                // Where the listener is, reckoned at the rate what is queued was played at.
                let heard = state.currentTime
                let old = state.controls.rate
                state.controls.setRate(newValue, decoder: state.decoder)
                if state.controls.enableRate, state.controls.rate != old { restartIfQueuedLong(&state, &events, from: heard) }
            }
        }
    }

    /// How ``rate`` changes the speed, as `AVPlayerItem.audioTimePitchAlgorithm`: ``AudioTimePitchAlgorithm/timeDomain``
    /// (the default: pitch kept, SoundTouch tuned for speech) or ``AudioTimePitchAlgorithm/varispeed`` (pitch follows
    /// the speed, libsoxr). May be changed at any time: while prepared, playback goes on from the position heard with
    /// the new one.
    public var audioTimePitchAlgorithm: AudioTimePitchAlgorithm {
        get { state.withLock { $0.controls.pitchAlgorithm } }
        set {
            withState { state, events in
                guard state.controls.pitchAlgorithm != newValue else { return }
                state.controls.pitchAlgorithm = newValue
                if state.voice != nil, state.controls.enableRate { move(&state, &events, to: state.currentTime, playing: state.isPlaying) }
            }
        }
    }

    /// Seconds on the output device's clock, which runs while the device exists; the time base of
    /// ``play(atTime:)``. Opens the device if no player has yet.
    public var deviceCurrentTime: TimeInterval {
        let name = state.withLock { $0.deviceName } ?? AudioSession.shared.outputForNewPlayers
        return (try? StreamEngine.engine(for: name, direction: .playback, request: AudioSession.shared.playbackRequest).deviceCurrentTime) ?? 0
    }
}

/// A weak reference to the delegate, so that the state stays a value.
struct WeakDelegate {
    weak var value: (any AudioPlayerDelegate)?
}
