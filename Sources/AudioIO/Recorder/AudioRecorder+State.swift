import FoundationEssentials

extension AudioRecorder {
    /// Everything mutable about a recorder, guarded by its mutex.
    struct State {
        var deviceName: String?
        /// The session it joins, whose category allows recording or not (tests give one of their own).
        var session = AudioSession.shared
        var delegate = WeakRecorderDelegate()
        var status = Status.unknown
        var isRecording = false
        var isMeteringEnabled = false
        var speechEnhancement: SpeechEnhancement?
        var levels = AudioLevels(peak: [], average: [])
        var engine: StreamEngine?
        var tap: CaptureTap?
        /// The early capture whose tap is ``tap``, held for the events it passes on.
        var earlyCapture: EarlyCapture?
        var writer: RecordingWriter?
        var isInCycle = false
        var summary: AudioFileSummary?
        /// Markers of the recording prepared, or else of the last one.
        var markers: [AudioMarker] = []
        /// When another program took the device from the recording, until it resumes: the gap it marks.
        var interruptedSince: ContinuousClock.Instant?
        /// The duration asked of a start that failed (another program held the device): the session's resume asks it
        /// again.
        var durationToResumeWith: TimeInterval?
        var subscribers = EventSubscribers<Event>()
    }

    /// The recorder's events, in order, from now on, until the stream is dropped. Each call makes a new
    /// stream; several may be listened to at once.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            state.withLock { $0.subscribers.add(continuation) }
        }
    }

    /// Runs `body` under the lock and hands its events to the subscribers there, in order; then tells the
    /// delegate, outside the lock, so that it may call back into the recorder.
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        var events: [Event] = []
        let (result, delegate) = state.withLock { state in
            let result = body(&state, &events)
            state.subscribers.yield(events)
            return (result, state.delegate.value)
        }
        for event in events {
            switch event {
            case .finishedRecording(let successfully): delegate?.audioRecorderDidFinishRecording(self, successfully: successfully)
            case .encodeError(let error): delegate?.audioRecorderEncodeErrorDidOccur(self, error: error)
            case .statusChanged, .started, .overrun: break
            }
        }
        return result
    }
}
