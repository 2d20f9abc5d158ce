import Atomics
import FoundationEssentials

extension AudioRecorder {
    /// Creates the file (replacing one at ``url``) and opens the device, so that ``record()`` starts at once.
    ///
    /// Fails with ``AudioRecorderError/categoryDoesNotRecord(_:)`` when the ``AudioSession``'s category does not
    /// record, as `AVAudioRecorder` does.
    ///
    /// - Returns: Whether the recorder is ready; on false, ``status`` holds the reason.
    @discardableResult
    public func prepareToRecord() -> Bool {
        withState { state, events in prepare(&state, &events) }
    }

    /// Starts or resumes recording with the next device period, until ``stop()``; returns once the device is
    /// capturing, so that what is said from then on is in the file. The device is opened and started before the file
    /// is made.
    ///
    /// - Returns: Whether recording started; on false, ``status`` holds the reason.
    @discardableResult
    public func record() -> Bool {
        waitUntilCapturing(joinSession(withState { state, events in start(&state, &events, at: nil, forDuration: nil) }))
    }

    /// Starts recording with what `early` captured from its start on: its device and its ring become the recording's,
    /// the file is made and written from the first frame it held. A `duration` it was made with counts from that frame.
    ///
    /// - Precondition: `early` was made with this recorder's ``settings`` and no recorder took it over yet.
    /// - Returns: Whether recording started; on false, ``status`` holds the reason (and `early`, should it capture
    ///   still, stops when it is dropped).
    @discardableResult
    public func record(from early: EarlyCapture) -> Bool {
        precondition(early.settings == settings, "an early capture is taken over by a recorder of its own settings")
        let started = joinSession(withState { state, events in
            guard state.writer == nil, prepare(&state, &events, adopting: early) else { return false }
            state.isRecording = true
            return true
        })
        // Outside the recorder's lock: what the tap reported before is handled as it would have been then.
        early.handOver(to: self)
        return started
    }

    /// Starts recording when the device clock reaches `time` (seconds on ``deviceCurrentTime``'s clock).
    ///
    /// Recorders on one device given the same `time` start on the same frame. A time already passed
    /// starts with the next period. A paused recorder resumes at once.
    ///
    /// - Returns: Whether recording is scheduled; on false, ``status`` holds the reason.
    @discardableResult
    public func record(atTime time: TimeInterval) -> Bool {
        joinSession(withState { state, events in start(&state, &events, at: time, forDuration: nil) })
    }

    /// Records `duration` seconds of audio (exactly: `duration` × the device rate frames, paused time not
    /// counted), then stops and finishes the file by itself; returns once the device is capturing, as ``record()``.
    ///
    /// - Returns: Whether recording started; on false, ``status`` holds the reason.
    @discardableResult
    public func record(forDuration duration: TimeInterval) -> Bool {
        waitUntilCapturing(joinSession(withState { state, events in start(&state, &events, at: nil, forDuration: duration) }))
    }

    /// Once recording has `started`, waits until the device thread runs the capture (it starts the device's stream
    /// asynchronously), at most ``captureStartWait`` seconds; returns `started`.
    private func waitUntilCapturing(_ started: Bool) -> Bool {
        if started, let engine = state.withLock({ $0.isRecording ? $0.engine : nil }) {
            engine.waitUntilRunning(timeout: Self.captureStartWait)
        }
        return started
    }

    /// Records `duration` seconds of audio from device time `time` on; see ``record(atTime:)`` and
    /// ``record(forDuration:)``.
    ///
    /// - Returns: Whether recording is scheduled; on false, ``status`` holds the reason.
    @discardableResult
    public func record(atTime time: TimeInterval, forDuration duration: TimeInterval) -> Bool {
        joinSession(withState { state, events in start(&state, &events, at: time, forDuration: duration) })
    }

    /// Pauses, keeping the file open; ``record()`` resumes. Nothing of the paused time is in the file.
    public func pause() {
        withState { state, _ in _ = Self.pause(&state) }
    }

    /// Pauses the tap if it captures; returns whether it did.
    private static func pause(_ state: inout State) -> Bool {
        guard state.isRecording, let tap = state.tap else { return false }
        tap.isPaused.store(true, ordering: .releasing)
        state.isRecording = false
        return true
    }

    /// Stops and finishes the file; returns once it is complete on the disk.
    public func stop() {
        withState { state, events in finish(&state, &events) }
    }

    /// Stops if recording, then deletes the file.
    ///
    /// - Returns: Whether the file was deleted (false when there was none, or it could not be removed).
    @discardableResult
    public func deleteRecording() -> Bool {
        withState { state, events in
            finish(&state, &events)
            do {
                try FileManager.default.removeItem(at: url)
                state.summary = nil
                return true
            } catch {
                return false
            }
        }
    }

    /// Opens the device and makes the tap, then the file and its writer. With `schedule`, which sets the tap's start
    /// and length, the tap goes into the capture cycle before the file and the writer are made (libsndfile, an
    /// encoder, FFmpeg, the meters): capture starts with the call, and the tap's ring holds what comes meanwhile for
    /// the writer to take from its first frame. With `early`, its device and its tap, capturing already, are the
    /// recording's.
    private func prepare(
        _ state: inout State, _ events: inout [Event], capturing schedule: ((CaptureTap, StreamEngine) -> Void)? = nil,
        adopting early: EarlyCapture? = nil
    ) -> Bool {
        if state.writer != nil { return true }
        let category = state.session.category
        guard category.records else {
            setStatus(.failed(.categoryDoesNotRecord(category)), &state, &events)
            return false
        }
        do {
            let engine: StreamEngine, tap: CaptureTap
            if let early {
                precondition(early.takeOver(), "an early capture is taken over once")
                (engine, tap) = (early.engine, early.tap)
                state.earlyCapture = early
                state.engine = engine
                state.tap = tap
                state.isInCycle = true
            } else {
                (engine, tap) = try settings.openCapture(device: state.deviceName)
                tap.owner = self
            }
            tap.isMeteringEnabled.store(state.isMeteringEnabled, ordering: .relaxed)
            if let schedule {
                schedule(tap, engine)
                try engine.add(tap)
                state.engine = engine
                state.tap = tap
                state.isInCycle = true
            }
            let file = try AudioFileWriter(url: url, settings: settings, metadata: metadata, permissions: permissions)
            let writer = try RecordingWriter(
                tap: tap, file: file, deviceRate: engine.sampleRate, speechEnhancement: state.speechEnhancement
            ) { [tap, engine] in
                tap.hasEnded.load(ordering: .acquiring) || engine.failure != nil
            }
            writer.onError = { [weak self, weak writer] _ in
                guard let self, let writer else { return }
                self.writerDidFail(writer)
            }
            writer.start(pacedByDevice: !engine.isUnclocked)
            state.engine = engine
            state.tap = tap
            state.writer = writer
            state.markers = metadata.markers
            setStatus(.readyToRecord, &state, &events)
            return true
        } catch let error as AudioDeviceError {
            release(&state)
            setStatus(.failed(.device(error)), &state, &events)
        } catch let error as AudioFileError {
            release(&state)
            setStatus(.failed(.file(error)), &state, &events)
        } catch {
            release(&state)
            setStatus(.failed(.file(AudioFileError(path: url.path, reason: .writeFailed("\(error)")))), &state, &events)
        }
        return false
    }

    private func start(_ state: inout State, _ events: inout [Event], at time: TimeInterval?, forDuration duration: TimeInterval?) -> Bool {
        guard !state.isRecording else { return true }
        state.durationToResumeWith = duration
        let limit = { (tap: CaptureTap, engine: StreamEngine) in
            guard let duration else { return }
            let frames = Int64(frames: duration, rate: engine.sampleRate)
            tap.frameLimit.store(tap.deliveredFrames.load(ordering: .acquiring) + frames, ordering: .releasing)
        }
        let schedule = { (tap: CaptureTap, engine: StreamEngine) in
            limit(tap, engine)
            tap.startFrame.store(time.map { engine.frame(at: $0) } ?? CaptureTap.immediately, ordering: .releasing)
        }
        guard let tap = state.tap, let engine = state.engine, state.writer != nil else {
            // Not prepared: the tap starts before the file is made.
            guard prepare(&state, &events, capturing: schedule) else { return false }
            state.durationToResumeWith = nil
            state.isRecording = true
            return true
        }
        state.durationToResumeWith = nil
        if tap.hasStarted.load(ordering: .acquiring) || tap.startFrame.load(ordering: .relaxed) != CaptureTap.notScheduled {
            limit(tap, engine)
            markInterruption(&state)
            tap.isPaused.store(false, ordering: .releasing)
            engine.wake()
        } else {
            schedule(tap, engine)
            do {
                try engine.add(tap)
            } catch {
                release(&state)
                setStatus(.failed(.device(error)), &state, &events)
                return false
            }
            state.isInCycle = true
        }
        state.isRecording = true
        return true
    }

    /// Ends the recording, if one is prepared: lets go of the tap, waits for the writer to finish the file
    /// and reports how it ended.
    func finish(_ state: inout State, _ events: inout [Event], deviceFailure: AudioDeviceError? = nil) {
        guard let writer = state.writer else { return }
        release(&state)
        let outcome = writer.waitUntilFinished()
        state.summary = outcome.summary
        if let error = outcome.error { events.append(.encodeError(error)) }
        if let deviceFailure { setStatus(.failed(.device(deviceFailure)), &state, &events) }
        events.append(.finishedRecording(successfully: outcome.error == nil && deviceFailure == nil))
    }

    /// Resuming after another program held the device: a marker where the recording stopped, named for how long it
    /// waited ("interrupted 3.2 s"), so that the gap the file does not hold is in the memo.
    private func markInterruption(_ state: inout State) {
        guard let since = state.interruptedSince else { return }
        state.interruptedSince = nil
        let seconds = (ContinuousClock.now - since) / .seconds(1)
        _ = addMarker("\(AudioMarker.interruptionPrefix)\((seconds * 10).rounded() / 10) s", &state)
    }

    /// Takes the tap out of the capture cycle, which ends the writer's input, and forgets what prepare
    /// set up.
    private func release(_ state: inout State) {
        if let tap = state.tap {
            tap.removalRequested.store(true, ordering: .releasing)
            if state.isInCycle {
                state.engine?.wake()
            } else {
                tap.hasEnded.store(true, ordering: .releasing)
            }
        }
        state.tap = nil
        state.earlyCapture = nil
        state.writer = nil
        state.interruptedSince = nil
        state.isInCycle = false
        state.isRecording = false
    }

    private func setStatus(_ status: Status, _ state: inout State, _ events: inout [Event]) {
        guard state.status != status else { return }
        state.status = status
        events.append(.statusChanged(status))
    }

    private func writerDidFail(_ writer: RecordingWriter) {
        withState { state, events in
            if state.writer === writer { finish(&state, &events) }
        }
    }
}

extension AudioRecorder: AudioSessionParticipant {
    func pauseForInterruption(_ reason: AudioSession.InterruptionReason) -> Bool {
        withState { state, _ in
            guard Self.pause(&state) else { return false }
            if reason == .deviceInUse { state.interruptedSince = .now }
            return true
        }
    }

    func resumeAfterInterruption() {
        if let duration = state.withLock({ $0.durationToResumeWith }) {
            record(forDuration: duration)
        } else {
            record()
        }
    }

    var session: AudioSession {
        get { state.withLock { $0.session } }
        set { state.withLock { $0.session = newValue } }
    }

    var deviceFoundBusy: (name: String, isInput: Bool)? {
        guard case .failed(.device(let error)) = status else { return nil }
        return Self.busyDevice(error, isInput: true)
    }

    var deviceInUse: (name: String, isInput: Bool)? {
        state.withLock { state in state.engine.map { ($0.deviceName, true) } }
    }

    /// The input unplugged: the recording stops and its file is finished with what was captured, as
    /// ``stop()`` does (the session's route change says why).
    func deviceInUseWentAway() {
        stop()
    }
}

extension AudioRecorder: CaptureTapOwner {
    func tapDidStart(_ tap: CaptureTap) {
        withState { state, events in
            if state.tap === tap { events.append(.started) }
        }
    }

    func tapDidFinish(_ tap: CaptureTap) {
        withState { state, events in
            if state.tap === tap { finish(&state, &events) }
        }
    }

    func tapDidOverrun(_ tap: CaptureTap, frames: Int) {
        withState { state, events in
            guard state.tap === tap, let engine = state.engine else { return }
            events.append(.overrun(lostTime: Double(frames) / engine.sampleRate))
        }
    }

    func tapDidLoseDevice(_ tap: CaptureTap, error: AudioDeviceError) {
        withState { state, events in
            guard state.tap === tap else { return }
            state.engine = nil
            finish(&state, &events, deviceFailure: error)
        }
    }
}
