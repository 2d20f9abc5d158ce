import FoundationEssentials

/// Something that plays, as transport controls, a status line, a sleep timer and the desktop's remote controls see
/// it: each player of this library (``AudioPlayer``, ``Player``, ``QueuePlayer``) and a ``PlayerGroup`` of players
/// started together. Code written against it works with all of them: `NowPlayingInfoCenter.connect(_:info:)` publishes
/// any, a ``SleepTimer`` fades any out.
///
/// AVFoundation has no such protocol (its players share no type); here the players' common members are this protocol,
/// and a group of players, steered as one, is one more of them.
///
/// **Thread safety**: every member may be used from any thread.
public protocol Playback: AnyObject, Sendable {
    /// Whether it can play: unknown until it is first prepared (or plays), then ready, or failed with the reason.
    var status: BasePlayer.Status { get }

    /// Whether it is playing now: true from ``play()`` on, also while it waits to start (``timeControlStatus`` says
    /// so); false while paused and once playback has finished.
    var isPlaying: Bool { get }

    /// Playing, paused, or asked to play and waiting, with the reason.
    var timeControlStatus: BasePlayer.TimeControlStatus { get }

    /// Seconds into what is heard (a queue's current item, a group's first player). Setting it moves there, clamped to
    /// what plays, and playing goes on from there if it was playing.
    var currentTime: TimeInterval { get set }

    /// The length of what is heard, in seconds; 0 while it is not known (an address whose header is on its way, an
    /// empty queue).
    var playbackDuration: TimeInterval { get }

    /// The speed, 0.25…4, 1 being normal.
    var rate: Float { get }

    /// Sets the speed (0.25…4, clamped; 0 or a value that is not a number changes nothing), playing or paused, without
    /// starting or stopping playback: what a remote control's or a key's speed change does. (Setting a ``Player``'s
    /// ``BasePlayer/rate`` plays it, as `AVPlayer`'s does.)
    func setRate(_ rate: Float)

    /// Linear gain, 0…1, independent of the system volume.
    var volume: Float { get set }

    /// Moves ``volume`` to `volume` linearly over `fadeDuration` seconds (0: at once).
    func setVolume(_ volume: Float, fadeDuration: TimeInterval)

    /// Starts or resumes playing.
    ///
    /// - Returns: Whether it plays (or waits to, with a reason); false when it cannot.
    @discardableResult func play() -> Bool

    /// Pauses where it is; ``play()`` goes on from there.
    func pause()

    /// The ALSA PCM played on, e.g. "default", "pulse", "hw:1"; nil for "default".
    var currentDevice: String? { get }

    /// The stretches downloaded of what is heard, in seconds into it: all of a file; for an address, what has come.
    var loadedTimeRanges: [Range<TimeInterval>] { get }

    /// Whether playback waits for a download to bring what is to be heard.
    var isPlaybackBufferEmpty: Bool { get }

    /// The channels of what is heard, which ``peakPower(forChannel:)`` and ``averagePower(forChannel:)`` measure; 0
    /// while not known.
    var numberOfChannels: Int { get }

    /// Whether levels are measured for ``updateMeters()``; off by default.
    var isMeteringEnabled: Bool { get set }

    /// Takes the levels heard since the last call, for ``peakPower(forChannel:)`` and ``averagePower(forChannel:)``.
    func updateMeters()

    /// The peak level of `channel` (0-based) at the last ``updateMeters()``, in dBFS, −160…0.
    func peakPower(forChannel channel: Int) -> Float

    /// The average (RMS) level of `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    func averagePower(forChannel channel: Int) -> Float

    /// The events, in order, from now on, until the stream is dropped.
    func events() -> AsyncStream<BasePlayer.Event>

    /// Calls `handler` with each event from now on, on the thread where it happened, until the observation is
    /// cancelled or released: for what must follow playback within milliseconds whatever the process's tasks are
    /// doing (the desktop's `Seeked` signal). Events of two threads at once may reach it in either order: read the
    /// state afresh in it rather than trust the order.
    func observe(_ handler: @escaping @Sendable (BasePlayer.Event) -> Void) -> PlayerObservation
}

extension Playback {
    /// Moves by `seconds` (back when negative), within what is heard: a skip button's ±15 s.
    public func skip(by seconds: TimeInterval) {
        currentTime = min(max(currentTime + seconds, 0), playbackDuration)
    }
}

extension BasePlayer: Playback {}
