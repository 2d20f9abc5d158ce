import Atomics
import Dispatch
import Glibc
import Synchronization

/// One device stream and the thread that moves its frames, either way: it renders the mix of every voice playing on
/// it into a playback stream (``Cycle/render(_:)``), or reads a capture stream into every tap recording or metering
/// from it (``Cycle/capture(_:)``). The stream is any ``PCMStream`` that ``StreamFactory`` opens for the device's name
/// (an ALSA PCM, or a test's ``NullDevice``), or a ``NullStream`` of its own (offline rendering).
///
/// There is one engine per device and direction in a process, made when a player, recorder or meter first needs it:
/// clients that share a device share its clock, which is what makes `play(atTime:)` and `record(atTime:)` start them
/// on the same frame. The first client's request sets the stream's format and buffer; later ones convert.
///
/// An offline engine (see ``offline(named:request:sink:)``) has no stream thread: its periods are rendered on the
/// caller's thread when an ``OfflineRenderer`` asks, into a ``NullStream``, so its clock is the frames rendered.
///
/// When nothing plays or records, the engine lets the device go quiet (playback plays out what it holds, capture
/// stops) and sleeps; its clock keeps running on the system's monotonic clock meanwhile, and a scheduled start wakes it
/// in time for its frame.
///
/// Three kinds of thread meet here: control threads (players, recorders) add voices and taps; the stream thread
/// (`SCHED_FIFO` when allowed and the device has a clock) runs the cycle each period and does nothing else; the event
/// thread, an ordinary one, delivers the stream thread's events to the clients' owners, ticks time observers, and
/// tells ``EngineObservers`` what happens to the device (opened, failed, interrupted by the system or another
/// program and back). Nothing here knows of the session.
final class StreamEngine: @unchecked Sendable {
    /// What runs each period, which also says the direction.
    enum Cycle {
        /// Mixes voices into a playback stream.
        case render(Mixer)
        /// Hands captured frames to taps.
        case capture(CaptureCycle)
    }

    let deviceName: String
    let configuration: StreamConfiguration
    let cycle: Cycle
    /// Its periods are rendered on request (``renderOffline(frames:)``), not by a thread of its own.
    let isOffline: Bool
    let clock: DeviceClock
    var sampleRate: Double { clock.sampleRate }
    var direction: StreamDirection { stream.direction }

    /// Whether the device's buffer holds more than a tenth of a second: a pause or a change written into the mix
    /// would be heard only after it, so players drop what is queued instead (see ``discardQueuedAudio(_:)``).
    var queuesLong: Bool { configuration.bufferFrames * 10 > configuration.sampleRate }

    /// Playback: frames written but not yet heard at the last write (the device's queue, a sound server's included).
    let queuedFrames = ManagedAtomic<Int>(0)
    /// Playback: underruns recovered since the engine started.
    let underruns = ManagedAtomic<Int>(0)

    private let stream: PCMStream
    private let streamWake = DispatchSemaphore(value: 0)
    private let eventWake = DispatchSemaphore(value: 0)
    /// Signalled as the stream thread ends.
    private let streamThreadEnded = DispatchSemaphore(value: 0)
    private let isStreamClosed = ManagedAtomic<Bool>(false)
    private let isClosing = ManagedAtomic<Bool>(false)
    private let errors: DeviceErrorHandler
    /// The device takes frames far faster than real time (ALSA's `null`, `file` on `null`, an unclocked null stream).
    private(set) var isUnclocked = false
    /// The voices or taps in the cycle, held for their owners until the stream thread lets them go.
    private let clients = Mutex<[ObjectIdentifier: AnyObject]>([:])

    private struct Key: Hashable {
        var device: String
        var direction: StreamDirection
    }

    private static let engines = Mutex<[Key: StreamEngine]>([:])

    /// The engine of `device` for `direction`, opening the stream ``StreamFactory`` chooses for it as `request` asks
    /// (or as near as it takes) the first time: the first client of a device sets its format and buffer for as long
    /// as the process has it open, and the others convert.
    static func engine(for device: String, direction: StreamDirection, request: StreamRequest) throws(AudioDeviceError) -> StreamEngine {
        let key = Key(device: device, direction: direction)
        let result: Result<(StreamEngine, Bool), AudioDeviceError> = engines.withLock { engines in
            // One that failed is on its way out of the registry: the device is opened anew.
            if let engine = engines[key], engine.failure == nil { return .success((engine, false)) }
            do throws(DeviceError) {
                let engine = try StreamEngine(stream: StreamFactory.open(device, direction: direction), request: request)
                engines[key] = engine
                return .success((engine, true))
            } catch {
                return .failure(AudioDeviceError(device: device, operation: .open, error))
            }
        }
        let (engine, opened) = try result.get()
        if opened { EngineObservers.tell { $0.engineOpened(device, direction: direction) } }
        return engine
    }

    /// Every engine open on a device for `direction`.
    static func all(_ direction: StreamDirection) -> [StreamEngine] {
        engines.withLock { $0.values.filter { $0.direction == direction && !$0.isOffline } }
    }

    /// A playback engine of its own, called `name` so that players given that device name play into it, that renders
    /// into `sink` only when ``renderOffline(frames:)`` is called: its clock stands still in between.
    static func offline(named name: String, request: StreamRequest, sink: @escaping (UnsafeRawBufferPointer) -> Void) throws(DeviceError) -> StreamEngine {
        let engine = try StreamEngine(stream: NullStream(name: name, sink: sink), request: request, isOffline: true)
        engines.withLock { $0[Key(device: name, direction: .playback)] = engine }
        return engine
    }

    private init(stream: any PCMStream, request: StreamRequest, isOffline: Bool = false) throws(DeviceError) {
        self.stream = stream
        var request = request
        if !stream.isClocked, !isOffline {
            // A device without a clock gains nothing from a long buffer, and a scheduled start waits less the longer
            // the buffer: players scheduled one after another would find the stream already past their frame.
            request.periodFrames = min(request.periodFrames, request.sampleRate / 100)
        }
        configuration = try stream.configure(request)
        deviceName = stream.name
        isUnclocked = !stream.isClocked
        self.isOffline = isOffline
        clock = DeviceClock(sampleRate: configuration.sampleRate, direction: stream.direction)
        let periodNanoseconds = configuration.periodFrames * 1_000_000_000 / configuration.sampleRate
        switch stream.direction {
        case .playback:
            // Voices are mono or stereo: a device that insists on more channels is not one to play on.
            guard (1...2).contains(configuration.channelCount) else { throw .unsupportedConfiguration }
            // Waiting up to two periods for a late decoder costs nothing on a clocked device (the buffer holds more);
            // an unclocked one waits up to 2 s, as no one listens: a gap there would only spoil what it writes.
            cycle = .render(Mixer(
                channelCount: configuration.channelCount, maximumFrames: configuration.periodFrames,
                starvationWait: isUnclocked ? Self.unclockedWait : 2 * periodNanoseconds))
        case .capture:
            // Waiting up to half a period for a late writer costs nothing on a clocked device; one without a clock
            // loses nothing by waiting for as long as a writer needs, and must not race past a slow one.
            cycle = .capture(CaptureCycle(
                format: configuration.format, channelCount: configuration.channelCount,
                maximumFrames: configuration.periodFrames, overflowWait: isUnclocked ? Self.unclockedWait : periodNanoseconds / 2))
        }
        errors = DeviceErrorHandler(stream: stream, cycle: cycle, eventWake: eventWake)
        if isOffline {
            periodBuffers = PeriodBuffers(configuration)
            clock.runOffline()
            streamThreadEnded.signal()
        } else {
            RealtimeThread.start(name: stream.direction == .playback ? "audio-out" : "audio-in", realtime: stream.isClocked) {
                [self] in run()
            }
        }
        // The event thread blocks (a recorder waits for its writer there) and runs owners' code.
        RealtimeThread.start(name: "audio-events", realtime: false) { [self] in eventLoop() }
    }

    /// Nanoseconds the stream thread of a device without a clock waits, per period, for a late decoder or writer.
    static let unclockedWait = 10_000_000_000

    // MARK: Clock

    /// Seconds on the device's clock (see ``DeviceClock``).
    var deviceCurrentTime: Double { clock.currentTime }

    /// The device frame at `deviceTime` seconds on this engine's clock.
    func frame(at deviceTime: Double) -> Int64 { clock.frame(at: deviceTime) }

    // MARK: Clients

    /// Puts `voice` into the mix. Throws when the device has failed or every slot is taken.
    func add(_ voice: Voice) throws(AudioDeviceError) {
        guard case .render(let mixer) = cycle else { preconditionFailure("a voice on a capture engine") }
        try admit(voice) { mixer.add(voice) }
    }

    /// Puts `tap` into the capture cycle. Throws when the device has failed or every slot is taken.
    func add(_ tap: CaptureTap) throws(AudioDeviceError) {
        guard case .capture(let capture) = cycle else { preconditionFailure("a tap on a playback engine") }
        try admit(tap) { capture.add(tap) }
    }

    /// Holds `client` for its owner once `enter` has put it into the cycle, and wakes the threads.
    private func admit(_ client: any AnyObject & Sendable, _ enter: () -> Bool) throws(AudioDeviceError) {
        if let failure { throw failure }
        guard enter() else { throw AudioDeviceError(device: deviceName, operation: .stream, reason: .busy) }
        clients.withLock { $0[ObjectIdentifier(client)] = client }
        wake()
    }

    /// Waits until the stream thread runs the cycle (it left idle, and a capture stream dropped what it held from
    /// before), the device fails, or `timeout` seconds pass: a tap added before is then given every frame the device
    /// captures from now on.
    func waitUntilRunning(timeout: Double) {
        let deadline = DeviceClock.nanoseconds() + Int(timeout * 1e9)
        while clock.isIdle, !errors.isFailed, DeviceClock.nanoseconds() < deadline {
            usleep(500)
        }
    }

    /// Wakes the stream thread (a client resumed, or asks to be removed, on an idle engine) and the event thread.
    func wake() {
        streamWake.signal()
        eventWake.signal()
    }

    /// Wakes the event thread alone: a voice now needs ticks (a time observer was added).
    func wakeEventThread() {
        eventWake.signal()
    }

    /// The failure that stopped the device, if it has stopped.
    var failure: AudioDeviceError? {
        errors.failure.map { AudioDeviceError(device: deviceName, operation: .stream, $0) }
    }

    /// Leaves the registry, ends the threads and lets the device go: after a failure, or once an offline engine is
    /// done.
    func close() {
        let key = Key(device: deviceName, direction: direction)
        Self.engines.withLock { engines in
            if engines[key] === self { engines[key] = nil }
        }
        isClosing.store(true, ordering: .releasing)
        wake()
        streamThreadEnded.wait()
        // Left signalled: whoever else closes finds the thread gone.
        streamThreadEnded.signal()
        guard !isStreamClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stream.close()
    }

    // MARK: Stream thread

    /// A period's mix in floats and in the stream's format.
    private struct PeriodBuffers {
        let floats: UnsafeMutableBufferPointer<Float>
        let raw: UnsafeMutableRawPointer

        init(_ configuration: StreamConfiguration) {
            let samples = configuration.periodFrames * configuration.channelCount
            floats = .allocate(capacity: samples)
            floats.initialize(repeating: 0)
            raw = .allocate(byteCount: samples * configuration.format.bytesPerSample, alignment: 16)
        }

        func deallocate() {
            floats.deallocate()
            raw.deallocate()
        }
    }

    /// An offline engine's buffers, for the thread that renders.
    private var periodBuffers: PeriodBuffers?

    deinit { periodBuffers?.deallocate() }

    private func run() {
        defer { streamThreadEnded.signal() }
        let buffers = PeriodBuffers(configuration)
        let (floats, raw) = (buffers.floats, buffers.raw)
        defer { buffers.deallocate() }
        var run = (startedAt: 0, frames: 0)
        while !isClosing.load(ordering: .relaxed) {
            let events = eventCount
            if case .capture(let capture) = cycle { capture.releaseRemovedTaps() }
            guard needsRunning else {
                enterIdle()
                tellEventThread(since: events)
                streamWake.wait()
                continue
            }
            if clock.isIdle {
                leaveIdle()
                run = (DeviceClock.nanoseconds(), 0)
            }
            let moved: Int?
            switch cycle {
            case .render(let mixer): moved = renderPeriod(mixer, floats: floats, raw: raw)
            case .capture(let capture): moved = capturePeriod(capture, floats: floats, raw: raw)
            }
            tellEventThread(since: events)
            guard let moved else { return }
            run.frames += moved
            noteSpeed(since: run.startedAt, frames: run.frames)
        }
    }

    /// Stream thread (or an offline engine's rendering thread): the events the cycle has put out so far, and the items
    /// its voices took up.
    private var eventCount: Int {
        switch cycle {
        case .render(let mixer): mixer.events.writeCount &+ mixer.itemsTakenUp
        case .capture(let capture): capture.events.writeCount
        }
    }

    /// Stream thread (or an offline engine's rendering thread): wakes the event thread, which sleeps until it has something to do, when the cycle put out events
    /// since ``eventCount`` was `count`: a few times in a voice's or a tap's life (started, another item or pass,
    /// finished, removed, overrun).
    private func tellEventThread(since count: Int) {
        if eventCount != count { eventWake.signal() }
    }

    /// Whether a period must be moved: a client plays or captures, or waits for its start frame.
    private var needsRunning: Bool {
        switch cycle {
        case .render(let mixer): mixer.needsRendering
        case .capture(let capture): capture.needsCapturing
        }
    }

    /// Offline engines: mixes and writes the next `frames` frames (at most a period), on the caller's thread.
    func renderOffline(frames: Int) {
        guard isOffline, case .render(let mixer) = cycle, let periodBuffers else { preconditionFailure("not an offline playback engine") }
        let events = eventCount
        _ = renderPeriod(mixer, floats: periodBuffers.floats, raw: periodBuffers.raw, frames: min(frames, configuration.periodFrames))
        tellEventThread(since: events)
    }

    /// Offline engines: the frames rendered so far, which are its clock.
    var framesRendered: Int64 { clock.framesTransferred.load(ordering: .relaxed) }

    /// Whether a voice plays or waits to start: an offline render goes on while one does.
    var hasVoicesToRender: Bool {
        guard case .render(let mixer) = cycle else { return false }
        return mixer.hasVoicesToPlay
    }

    /// The device frame after the last frame any voice has mixed.
    var endOfMixedFrames: Int64 {
        guard case .render(let mixer) = cycle else { return 0 }
        return mixer.endOfMix.load(ordering: .relaxed)
    }

    /// Mixes and writes one period (or the first `frames` frames of one); returns the frames written, or nil when the
    /// stream failed.
    private func renderPeriod(
        _ mixer: Mixer, floats: UnsafeMutableBufferPointer<Float>, raw: UnsafeMutableRawPointer, frames: Int? = nil
    ) -> Int? {
        let period = frames ?? configuration.periodFrames
        guard waitForRoom(frames: period, mixer) else { return 0 }
        let first = clock.framesTransferred.load(ordering: .relaxed)
        mixer.render(into: floats, frames: period, firstFrame: first)
        // Once the mix has ended (every voice finished, paused or let go), only what was mixed is written, and the
        // idle that follows drains it, as aplay does: a short sound, a range's end or a queue's last item does not
        // grow by the rest of a period of silence. An offline render is asked for its periods whole.
        let frames = isOffline || mixer.hasVoicesToPlay
            ? period : Int(max(0, min(Int64(period), mixer.endOfMix.load(ordering: .relaxed) - first)))
        SampleConversion.encode(UnsafeBufferPointer(rebasing: floats[..<(frames * configuration.channelCount)]), as: configuration.format, into: raw)
        var done = 0
        while done < frames {
            do {
                let written = try stream.write(raw + done * configuration.bytesPerFrame, frames: frames - done)
                done += written
                guard written == 0 else { continue }
                // No room yet: wait for it, or for a client. One that cut its voice off leaves the rest of this
                // period unwritten, and what is queued is dropped with the next period or the idle.
                if queuedAudioIsUnwanted(mixer) { break }
                _ = streamWake.wait(timeout: .now() + max(stream.waitingTime(for: frames - done), 0.001))
            } catch {
                if case .xrun = error { underruns.wrappingIncrement(ordering: .relaxed) }
                // Recovered or resumed, the rest of the period is written next.
                if case .failed = errors.handle(error) { return nil }
            }
        }
        let delay = stream.delay
        queuedFrames.store(delay, ordering: .relaxed)
        clock.noteTransfer(upTo: first + Int64(done), delay: delay)
        return done
    }

    /// Waits until `frames` fit into a stream that does not wait in its writes (a sound server's), so that a period is
    /// mixed when it can be written at once: one write a period, and what changed meanwhile (a pause, a volume) is in
    /// it. Drops what is queued once it is of voices cut off. Returns false when there is nothing left to render: the
    /// last voice paused or ended meanwhile, or the engine closes.
    private func waitForRoom(frames: Int, _ mixer: Mixer) -> Bool {
        while true {
            if queuedAudioIsUnwanted(mixer) { discardQueuedAudio(mixer) }
            // An offline render is asked for its periods, whether voices sound or not.
            if isOffline { return true }
            guard needsRunning, !isClosing.load(ordering: .relaxed) else { return false }
            let wait = stream.waitingTime(for: frames)
            guard wait > 0 else { return true }
            _ = streamWake.wait(timeout: .now() + wait)
        }
    }

    /// Whether what the device holds queued is of voices cut off, and no other voice sounds, on a device that holds
    /// much: it is to be dropped rather than heard. A short queue plays out: a pause is heard where the mix stopped.
    private func queuedAudioIsUnwanted(_ mixer: Mixer) -> Bool {
        guard queuesLong else {
            mixer.audioWasCut = false
            return false
        }
        mixer.noteCutVoices()
        return mixer.audioWasCut && !mixer.hasSoundingVoices
    }

    /// Drops what the device holds queued, unheard, so that a pause, a seek or a change of rate is heard now rather
    /// than after the queue (hundreds of milliseconds with a long buffer); the clock goes on from what was heard.
    private func discardQueuedAudio(_ mixer: Mixer) {
        mixer.audioWasCut = false
        let heard = clock.framesTransferred.load(ordering: .relaxed) - Int64(stream.delay)
        stream.drop()
        queuedFrames.store(0, ordering: .relaxed)
        clock.restart(at: heard)
    }

    /// Reads one period and hands it to the taps; returns the frames read (0 after an overrun, whose frames are
    /// counted as lost, or after an interruption), or nil when the stream failed.
    private func capturePeriod(_ capture: CaptureCycle, floats: UnsafeMutableBufferPointer<Float>, raw: UnsafeMutableRawPointer) -> Int? {
        // A stream that does not wait in its reads (a sound server's): the wait for a period comes first, so that it
        // is read in one go.
        let wait = stream.waitingTime(for: configuration.periodFrames)
        if wait > 0 { _ = streamWake.wait(timeout: .now() + wait) }
        let first = clock.framesTransferred.load(ordering: .relaxed)
        let got: Int
        do {
            got = try stream.read(into: raw, frames: configuration.periodFrames)
        } catch {
            switch errors.handle(error) {
            case .failed: return nil
            // The session paused the recorders meanwhile, so the interrupted time is no gap in their files.
            case .resumed: return 0
            case .recovered:
                // What should have been captured since the last read is lost: a gap of that length in every tap.
                let lost = max(0, frame(at: deviceCurrentTime) - first)
                capture.deviceDidLose(frames: Int(lost))
                clock.framesTransferred.store(first + lost, ordering: .relaxed)
                return 0
            }
        }
        // Nothing there yet, from a stream that does not wait (a sound server's), or a device that answers at once
        // without audio (which fails the read after a while, see ``ALSAStream``).
        guard got > 0 else {
            _ = streamWake.wait(timeout: .now() + max(stream.waitingTime(for: configuration.periodFrames), 0.001))
            return 0
        }
        capture.process(raw, frames: got, firstFrame: first)
        clock.noteTransfer(upTo: first + Int64(got), delay: stream.delay)
        return got
    }

    /// After 16 periods, a device that took them in under a quarter of their duration and holds none of them has no
    /// clock: from then on a starved voice is waited for instead of heard as a gap, as no one listens. (A sound server
    /// may also take the first periods fast, but it holds them queued.)
    private func noteSpeed(since start: Int, frames: Int) {
        guard !isUnclocked, case .render(let mixer) = cycle, queuedFrames.load(ordering: .relaxed) == 0,
              frames >= 16 * configuration.periodFrames
        else { return }
        let realTime = frames * 1_000_000_000 / configuration.sampleRate
        if (DeviceClock.nanoseconds() - start) * 4 < realTime {
            isUnclocked = true
            mixer.starvationWait.store(Self.unclockedWait, ordering: .relaxed)
        }
    }

    /// Nothing to move: playback plays out what the device holds (or drops it, when a voice was cut off), capture
    /// stops; then the clock runs on the monotonic clock.
    private func enterIdle() {
        guard !clock.isIdle else { return }
        switch cycle {
        case .render(let mixer) where queuedAudioIsUnwanted(mixer): discardQueuedAudio(mixer)
        case .render: stream.drain()
        case .capture: stream.drop()
        }
        queuedFrames.store(0, ordering: .relaxed)
        clock.enterIdle()
    }

    /// Something to move: wait for the earliest scheduled start (playback: less the device's latency), then go on
    /// counting frames from the idle clock, so that device time never jumps. Capture drops what the device held from
    /// before (a sound server keeps capturing for a prepared stream), so that the first frame read is from now.
    private func leaveIdle() {
        while let start = startFrameToWaitFor, frame(at: deviceCurrentTime) < start {
            let wait = Double(start - frame(at: deviceCurrentTime)) / sampleRate
            _ = streamWake.wait(timeout: .now() + min(wait, 0.005))
        }
        if direction == .capture { stream.drop() }
        clock.leaveIdle()
    }

    /// The frame to wait for before moving any, when every client that needs the stream waits for its start.
    private var startFrameToWaitFor: Int64? {
        switch cycle {
        case .render(let mixer): mixer.startFrameToWaitFor.map { $0 - Int64(configuration.bufferFrames) }
        case .capture(let capture): capture.earliestScheduledFrame
        }
    }

    // MARK: Event thread

    private func eventLoop() {
        while true {
            let wantsTicks = clients.withLock { clients in
                clients.values.contains { ($0 as? Voice)?.wantsTicks.load(ordering: .relaxed) ?? false }
            }
            // Woken by the stream thread's events, a failure, a suspension, a client or the close; by the clock only
            // for time observers.
            if wantsTicks {
                _ = eventWake.wait(timeout: .now() + 0.005)
            } else {
                eventWake.wait()
            }
            deliverEvents()
            errors.interruptions.resumeIfInterrupted(stream) { isClosing.load(ordering: .acquiring) }
            if errors.isFailed {
                failEverything()
                return
            }
            if isClosing.load(ordering: .acquiring) { return }
            let voices = clients.withLock { $0.values.compactMap { $0 as? Voice } }
            for voice in voices { voice.owner?.voiceDidTick(voice) }
        }
    }

    /// The stream thread's events, to the owners of their voices or taps.
    private func deliverEvents() {
        switch cycle {
        case .render(let mixer):
            while let event = mixer.events.pop() {
                let voice = Unmanaged<Voice>.fromOpaque(event.voice)
                let owner = voice.takeUnretainedValue().owner
                switch event.kind {
                case .started: owner?.voiceDidStart(voice.takeUnretainedValue())
                case .finished:
                    // Finished is when it has been played, not mixed: what the device holds queued is heard first.
                    waitUntilPlayed(upTo: mixer.endOfMix.load(ordering: .relaxed))
                    // A last tick first: an unclocked device may mix a whole file between two ticks.
                    owner?.voiceDidTick(voice.takeUnretainedValue())
                    owner?.voiceDidFinish(voice.takeUnretainedValue())
                case .itemStarted: owner?.voiceDidStartItem(voice.takeUnretainedValue())
                case .removed:
                    _ = clients.withLock { $0.removeValue(forKey: ObjectIdentifier(voice.takeUnretainedValue())) }
                    voice.release()
                }
            }
        case .capture(let capture):
            while let event = capture.events.pop() {
                let tap = Unmanaged<CaptureTap>.fromOpaque(event.tap)
                let owner = tap.takeUnretainedValue().owner
                switch event.kind {
                case .started: owner?.tapDidStart(tap.takeUnretainedValue())
                case .finished: owner?.tapDidFinish(tap.takeUnretainedValue())
                case .overrun: owner?.tapDidOverrun(tap.takeUnretainedValue(), frames: event.frames)
                case .removed:
                    _ = clients.withLock { $0.removeValue(forKey: ObjectIdentifier(tap.takeUnretainedValue())) }
                    tap.release()
                }
            }
        }
    }

    /// Waits, at most the buffer's length and a second, until the device has played what was mixed before `frame`. A
    /// device without a clock has played what it was written once it idles (a `file` PCM writes out when drained),
    /// unless other clients keep it running.
    private func waitUntilPlayed(upTo frame: Int64) {
        guard !isOffline else { return }
        let deadline = DeviceClock.nanoseconds() + configuration.bufferFrames * 1_000_000_000 / configuration.sampleRate + 1_000_000_000
        while DeviceClock.nanoseconds() < deadline, !clock.isIdle, !errors.isFailed {
            if self.frame(at: deviceCurrentTime) >= frame, !isUnclocked || needsRunning { return }
            usleep(2000)
        }
    }

    /// The device failed: the engine leaves the registry, its observers hear it, and every client's owner too.
    private func failEverything() {
        close()
        guard let failure else { return }
        EngineObservers.tell { $0.engineFailed(deviceName, direction: direction, error: failure) }
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all {
            if let voice = client as? Voice { voice.owner?.voiceDidLoseDevice(voice, error: failure) }
            if let tap = client as? CaptureTap { tap.owner?.tapDidLoseDevice(tap, error: failure) }
        }
    }

    // MARK: Capture

    /// Waits, up to `timeout` seconds, until every capture engine with no tap capturing has stopped its device:
    /// after an interruption paused the recorders, a capture thread must not be left in a read that the process
    /// stopping would turn into an overrun, heard later as silence in a resumed recording.
    static func waitUntilPausedCaptureStops(timeout: Double) {
        let deadline = DeviceClock.nanoseconds() + Int(timeout * 1e9)
        for engine in all(.capture) {
            while !engine.clock.isIdle, !engine.needsRunning, engine.failure == nil, DeviceClock.nanoseconds() < deadline {
                usleep(1000)
            }
        }
    }
}
