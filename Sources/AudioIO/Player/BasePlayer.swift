import FoundationEssentials
import Synchronization

/// What ``AudioPlayer`` and ``Player`` share, as `AVQueuePlayer` shares `AVPlayer`'s: the status, playing and
/// pausing, the position and seeking, volume and fades, pan, speed, silence skipping, meters, time observers, what is
/// downloaded of an address, the rendered audio and the events. Not made directly: use one of the two.
///
/// One lock guards everything a player holds — its voice on the engine, the decoder that fills it, the controls and
/// what it plays — so that every event is told in the order it happened. What differs between the two is what plays
/// and what follows its end: one file and its loops, or a list of items. Each says that by overriding the methods
/// marked *Shape*.
///
/// **Thread safety**: every member may be used from any thread.
public class BasePlayer: @unchecked Sendable {
    let state: Mutex<State>

    init(state: State) {
        self.state = Mutex(state)
    }

    deinit {
        state.withLock { release(&$0) }
    }

    /// The ALSA PCM to play on, e.g. "default", "hw:1", "pulse"; `nil` means "default". Takes effect when a voice is
    /// next made: the next ``AudioPlayer/prepareToPlay()`` after ``AudioPlayer/stop()``, or a queue's next start from
    /// scratch.
    public var currentDevice: String? {
        get { state.withLock { $0.deviceName } }
        set { state.withLock { $0.deviceName = newValue } }
    }

    /// Whether it can play: unknown until it is first prepared (or plays), then ready, or failed with the reason.
    public var status: Status { state.withLock { $0.status } }

    /// Whether it is playing now: true from `play()` on, also while a scheduled start waits for its time or an
    /// address's download is waited for; false while paused, stopped, and once playback has finished.
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }

    /// Playing, paused, or waiting for the time given to ``AudioPlayer/play(atTime:)``, as `AVPlayer.timeControlStatus`;
    /// each change is an ``Event/timeControlStatusChanged(_:)``.
    public var timeControlStatus: TimeControlStatus { state.withLock { $0.timeControlStatus } }

    /// Starts or resumes playback with the next device period.
    ///
    /// The player follows the shared ``AudioSession``'s policy once it has played: an interruption pauses it (and
    /// resumes it, with ``AudioSession/CategoryOptions/resumeAfterInterruption``), and unplugging the headphones, or
    /// losing the device, pauses it where it was.
    ///
    /// - Returns: Whether playback started; on false, ``status`` holds the reason (or nothing is left to play).
    @discardableResult
    public func play() -> Bool {
        startPlaying()
    }

    /// Starts or resumes playback at the rate as it is, joining the session.
    @discardableResult
    func startPlaying() -> Bool {
        joinSession(withState { state, events in start(&state, &events) })
    }

    /// Pauses, keeping the position (and a prepared player's prepared state); `play()` resumes.
    public func pause() {
        withState { state, events in _ = pause(&state, &events) }
    }

    /// The events, in order, from now on, until the stream is dropped. Each call makes a new stream; several may be
    /// listened to at once.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            state.withLock { $0.subscribers.add(continuation) }
        }
    }

    /// Calls `handler` with each event from now on, until the observation is cancelled or released: on the thread where
    /// the event happened (the caller's of the method that caused it, else the engine's event thread), after the
    /// player's lock is let go. Events of two threads at once may reach it in either order: read the player's state in
    /// it rather than trust the order.
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> PlayerObservation {
        let id = state.withLock { $0.listeners.add(handler) }
        return PlayerObservation { [weak self] in self?.state.withLock { $0.listeners.remove(id) } }
    }

    /// The length of what plays, in seconds: an ``AudioPlayer``'s file, a ``Player``'s current item; 0 while not known.
    public var playbackDuration: TimeInterval {
        preconditionFailure("a player overrides playbackDuration")
    }

    /// The channels of what plays (an ``AudioPlayer``'s file, a ``Player``'s current item), which the meters measure;
    /// 0 while not known, as for an address whose header is on its way.
    public var numberOfChannels: Int {
        state.withLock { meteredChannels(in: $0) }
    }

    /// Sets the speed as a remote control or a key does: 0.25…4 (clamped; 0 or a value that is not a number changes
    /// nothing), playing or paused, without starting playback. An ``AudioPlayer`` gets ``AudioPlayer/enableRate`` set;
    /// a paused ``Player`` resumes at it (its ``Player/defaultRate``).
    public func setRate(_ rate: Float) {
        guard rate.isFinite, rate > 0 else { return }
        state.withLock { $0.controls.enableRate = true }
        _ = changeRate(to: rate)
    }

    // MARK: Shape

    /// *Shape*: makes a voice, primed and not yet in the mix, for what plays at ``State/time``, unless one is; or says
    /// why it cannot yet, or failed (the status saying why).
    func prepare(_ state: inout State, _ events: inout [Event]) -> Preparation {
        preconditionFailure("a player overrides prepare")
    }

    /// *Shape*: whether setting a rate other than 0 plays, as `AVPlayer`'s does (`AVAudioPlayer`'s does not).
    var startsWhenRateIsSet: Bool { false }

    /// *Shape*: the time a seek to `time` goes to, clamped to what plays; nil when nothing plays, and a seek completes
    /// unfinished.
    func seekTarget(_ time: TimeInterval, in state: State) -> TimeInterval? {
        preconditionFailure("a player overrides seekTarget")
    }

    /// *Shape*: whether a paused voice is let go on resuming, and a new one made at the time paused: for a live
    /// playlist, whose window may have moved past it (the new one lands at the window's start then).
    func resumesAfresh(in state: State) -> Bool { false }

    /// *Shape*: the item playing, whose change is an ``Event/currentItemChanged(_:)``: nil for a player of one file.
    func currentItem(in state: State) -> (token: Int, item: PlayerItem)? { nil }

    /// *Shape*: what is downloaded of what plays now.
    func download(in state: State) -> ItemDownload {
        preconditionFailure("a player overrides download")
    }

    /// *Shape*: fetches the start of what plays next, at each look at the buffer (a queue's next item).
    func fetchAhead(_ state: State) {}

    /// *Shape*: the channels of what plays now, for meters (0 when unknown: silence reads −160 on every channel).
    func meteredChannels(in state: State) -> Int { 0 }

    /// *Shape*: hands `events` to the delegate, outside the lock.
    func tellDelegate(_ events: [Event]) {}

    /// *Shape*: lets go of the voice and what belongs to it; the engine drops the voice at its next period.
    func release(_ state: inout State) {
        state.release()
    }

    /// *Shape*: the voice's first frame was mixed.
    func voiceDidStart(_ voice: Voice) {
        preconditionFailure("a player overrides voiceDidStart")
    }

    /// *Shape*: the voice played its last frame.
    func voiceDidFinish(_ voice: Voice) {
        preconditionFailure("a player overrides voiceDidFinish")
    }

    /// *Shape*: the voice took up another item (a queue's next file, a loop's next pass).
    func voiceDidStartItem(_ voice: Voice) {}

    /// *Shape*: what the voice's tick tells besides time observers (a loop starting over), under the lock.
    func voiceDidTick(_ voice: Voice, _ state: inout State, _ events: inout [Event]) {}

    // MARK: Internals

    /// Runs `body` under the lock and hands its events to the subscribers there, so that every stream sees them in the
    /// order they happened: the status, then the changes of ``timeControlStatus``, ``rate`` and the current item that
    /// `body` made, then what it reports happened. The delegate, the listeners, seeks' completion handlers and time
    /// observers due are called after the lock is released, so that they may call back into the player — in that same
    /// order across threads (see ``deliver()``).
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        let result = state.withLock { state -> (T, Bool) in
            var events: [Event] = []
            let (timeControlStatus, rate, item) = (state.timeControlStatus, state.controls.rate, currentItem(in: state))
            let result = body(&state, &events)
            var changes: [Event] = []
            if state.timeControlStatus != timeControlStatus { changes.append(.timeControlStatusChanged(state.timeControlStatus)) }
            if state.controls.rate != rate { changes.append(.rateChanged(state.controls.rate)) }
            let newItem = currentItem(in: state)
            if newItem?.token != item?.token { changes.append(.currentItemChanged(newItem?.item)) }
            let statuses = events.filter { if case .statusChanged = $0 { true } else { false } }
            events = statuses + changes + events.filter { if case .statusChanged = $0 { false } else { true } }
            state.subscribers.yield(events)
            // Periodic observers hear a jump, a start and a stop at once, as AVPlayer's do.
            let jumped = events.contains(.timeJumped) || (state.timeControlStatus == .paused) != (timeControlStatus == .paused)
            let delivery = Delivery(
                events: events, listeners: events.isEmpty ? [] : state.listeners.all, completions: state.seeks.takeDue(),
                observerCalls: jumped ? state.observers.jumped(to: state.currentTime) : [])
            // Most calls (an engine's tick) leave nothing to call: they take no turn at delivering.
            if !delivery.isEmpty { state.undelivered.append(delivery) }
            return (result, !delivery.isEmpty)
        }
        if result.1 { deliver() }
        return result.0
    }

    /// Calls what ``withState(_:)`` left to call, in the order it was left, outside the lock. One thread delivers at a
    /// time: another thread's events, or those of a call made from a delegate method, wait for it and are delivered by
    /// it, so that a delegate never hears two events out of order.
    private func deliver() {
        let delivers = state.withLock { state in
            defer { state.isDelivering = true }
            return !state.isDelivering
        }
        guard delivers else { return }
        while let batch = state.withLock({ state -> [Delivery]? in
            guard !state.undelivered.isEmpty else {
                state.isDelivering = false
                return nil
            }
            defer { state.undelivered.removeAll() }
            return state.undelivered
        }) {
            for delivery in batch {
                tellDelegate(delivery.events)
                for event in delivery.events {
                    for listener in delivery.listeners { listener(event) }
                }
                for completion in delivery.completions { completion.handler(completion.finished) }
                TimeObservers.run(delivery.observerCalls)
            }
        }
    }

    /// Resumes the prepared voice, or prepares one and puts it in the mix; at the device time `time` when given
    /// (``AudioPlayer/play(atTime:)``), else with the next period. False, with the status saying why, when nothing can
    /// be played or the device cannot be opened.
    func start(_ state: inout State, _ events: inout [Event], at time: TimeInterval? = nil) -> Bool {
        // Waiting for a device another program held: asked again once it is free, it tries again.
        guard !state.isPlaying || state.waitingReason == .deviceInUse else { return true }
        guard time?.isFinite ?? true, abs(time ?? 0) < 1e9 else { return false }
        if !state.isPlaying, state.voice?.hasStarted.load(ordering: .acquiring) == true, resumesAfresh(in: state) {
            move(&state, &events, to: state.time, playing: true)
            return state.isPlaying
        }
        switch prepare(&state, &events) {
        case .failed: return false
        case .waiting(let reason):
            // Asked to play: it plays once what it waits for is there.
            state.waitingReason = reason
            state.isPlaying = true
            return true
        case .ready: state.waitingReason = nil
        }
        guard let voice = state.voice, let engine = state.engine else { return false }
        if !voice.hasStarted.load(ordering: .acquiring) {
            voice.keepsTime.store(time != nil, ordering: .relaxed)
            // The start frame before the pause flag, so that no period sees the old start unpaused.
            voice.startFrame.store(time.map { engine.frame(at: $0) } ?? Voice.immediately, ordering: .releasing)
            state.waitsForScheduledStart = time.map { $0 > engine.deviceCurrentTime } ?? false
        } else {
            voice.keepsTime.store(false, ordering: .relaxed)
        }
        voice.isPaused.store(false, ordering: .releasing)
        // An address's first audio may take any time: its output waits for it.
        if state.watchesDownloads, state.waitsToMinimizeStalls { state.buffering.hold(voice, on: engine) }
        if state.isInMix {
            engine.wake()
        } else {
            do {
                try engine.add(voice)
            } catch {
                release(&state)
                state.seeks.end(finished: false)
                state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
                return false
            }
            state.isInMix = true
        }
        state.isPlaying = true
        return true
    }

    /// Pauses the voice if it plays; returns whether it did.
    func pause(_ state: inout State, _ events: inout [Event]) -> Bool {
        guard state.isPlaying else { return false }
        guard let voice = state.voice else {
            // Waiting to play: no longer.
            state.isPlaying = false
            state.waitingReason = nil
            return true
        }
        if state.engine?.queuesLong == true {
            // The device holds more than a pause may take to be heard: the voice goes (the engine drops what is
            // queued of it) and a new one waits at the position heard.
            move(&state, &events, to: state.currentTime, playing: false)
            state.seeks.end(finished: true)
            return true
        }
        voice.isPaused.store(true, ordering: .releasing)
        // What is queued on the device plays out: the pause is heard where the mix stopped.
        state.isPlaying = false
        state.time = state.currentTime
        // A seek waiting to be heard is where it was asked for, and ready: complete.
        state.seeks.end(finished: true)
        return true
    }

    /// Lets the voice go and makes a new one at `time` (clamped to what plays): playing when `playing`, else prepared
    /// if one was. A seek waiting to be heard waits for the new voice.
    func move(_ state: inout State, _ events: inout [Event], to time: TimeInterval, playing: Bool) {
        let wasPrepared = state.voice != nil
        release(&state)
        state.time = seekTarget(time, in: state) ?? 0
        if playing {
            _ = start(&state, &events)
        } else if wasPrepared {
            _ = prepare(&state, &events)
        }
        state.seeks.moved(to: state.isPlaying ? state.voice : nil)
    }

    /// Goes on from the position heard with a new voice, playing if it was: after a change the decoder has read past (an
    /// edit of a queue, a new pitch algorithm).
    func restart(_ state: inout State, _ events: inout [Event]) {
        move(&state, &events, to: state.currentTime, playing: state.isPlaying)
    }

    /// After a change to what the voice sounds like (rate, volume, an edit the decoder has read past) on a device that
    /// holds much queued: goes on from the position heard (`heard`, when the change already moved
    /// ``State/currentTime``) with a new voice, so that the change is heard now rather than after the queue.
    func restartIfQueuedLong(_ state: inout State, _ events: inout [Event], from heard: TimeInterval? = nil) {
        guard state.isPlaying, state.engine?.queuesLong == true else { return }
        move(&state, &events, to: heard ?? state.currentTime, playing: true)
    }
}

/// What preparing to play found.
enum Preparation {
    /// A voice is prepared.
    case ready
    /// Nothing can play yet, for this reason: playing starts once it can.
    case waiting(BasePlayer.WaitingReason)
    /// Nothing can play: the status says why.
    case failed
}

extension BasePlayer: VoiceOwner {
    func voiceDidTick(_ voice: Voice) {
        TimeObservers.run(withState { state, events in
            voiceDidTick(voice, &state, &events)
            return state.observers.tick(voice, current: state.voice, isPlaying: state.isPlaying, from: state.time)
        })
    }

    func voiceDidLoseDevice(_ voice: Voice, error: AudioDeviceError) {
        withState { state, events in
            guard state.voice === voice else { return }
            state.time = state.currentTime
            state.isInMix = false
            release(&state)
            state.engine = nil
            state.seeks.end(finished: false)
            // The session's policy: a vanished output pauses playback where it was, and nothing moves to another
            // device; `play()` opens the device again when it is back.
            if error.reason == .disconnected { return }
            state.status.change(to: .failed(.device(error)), reporting: Event.statusChanged, in: &events)
            events.append(.finishedPlaying(successfully: false))
        }
    }
}

/// A player as the session sees it: paused and resumed by interruptions, and paused where it was when its output is
/// unplugged; ``play()`` resumes it on the same device.
extension BasePlayer: AudioSessionParticipant {
    /// Pauses if playing, in one step under the lock: a pause of the listener's own in between is not undone by the
    /// interruption's end.
    func pauseForInterruption(_ reason: AudioSession.InterruptionReason) -> Bool {
        withState { state, events in pause(&state, &events) }
    }

    func resumeAfterInterruption() { play() }

    func deviceInUseWentAway() { pause() }

    var deviceInUse: (name: String, isInput: Bool)? {
        state.withLock { $0.engine.flatMap { $0.isOffline ? nil : ($0.deviceName, false) } }
    }

    var deviceFoundBusy: (name: String, isInput: Bool)? {
        state.withLock { state in
            if state.isPlaying, state.waitingReason == .deviceInUse, let held = state.heldDevice { return (held, false) }
            guard case .failed(.device(let error)) = state.status else { return nil }
            return Self.busyDevice(error, isInput: false)
        }
    }

    var waitsForDevice: Bool {
        state.withLock { $0.isPlaying && $0.waitingReason == .deviceInUse }
    }

    var session: AudioSession {
        get { state.withLock { $0.session } }
        set { state.withLock { $0.session = newValue } }
    }
}
