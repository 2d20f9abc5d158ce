import Atomics
import Dispatch
import Synchronization
import SystemEdge

/// One device stream and the thread that moves its frames, either way: it renders the mix of every voice playing on
/// it into a playback stream (``Cycle/render(_:)``), or reads a capture stream into every tap recording or metering
/// from it (``Cycle/capture(_:)``). The stream is any ``PCMStream`` that ``StreamFactory`` opens for the device's name
/// (an ALSA PCM, or a test's ``NullDevice``), or a ``NullStream`` of its own (offline rendering).
///
/// There is one engine per device and direction in a process (see `StreamEngine+Registry.swift`), made when a
/// player, recorder or meter first needs it: clients that share a device share its clock (``DeviceClock``), which is
/// what makes `play(atTime:)` and `record(atTime:)` start them on the same frame. The first client's request sets the
/// stream's format and buffer; later ones convert.
///
/// An offline engine (see ``offline(named:request:sink:)``) has no stream thread: its periods are rendered on the
/// caller's thread when an ``OfflineRenderer`` asks, into a ``NullStream``, so its clock is the frames rendered.
///
/// When nothing plays or records, the engine lets the device go quiet (playback plays out what it holds, capture
/// stops) and sleeps; its clock keeps running on the system's monotonic clock meanwhile, and a scheduled start wakes it
/// in time for its frame (`StreamEngine+Idle.swift`).
///
/// Three kinds of thread meet here: control threads (players, recorders) add voices and taps; the stream thread
/// (`SCHED_FIFO` when allowed and the device has a clock) runs the cycle each period and does nothing else
/// (`StreamEngine+StreamThread.swift`, under a real-time contract); the event thread, an ordinary one, delivers the
/// stream thread's events to the clients' owners, ticks time observers, and tells ``EngineObservers`` what happens to
/// the device (opened, failed, interrupted by the system or another program and back) (`StreamEngine+EventThread.swift`).
/// A failed transfer is answered by ``DeviceErrorHandler``. Nothing here knows of the session.
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

    let stream: PCMStream
    let errors: DeviceErrorHandler
    let streamWake = DispatchSemaphore(value: 0)
    let eventWake = DispatchSemaphore(value: 0)
    /// Signalled as the stream thread ends.
    private let streamThreadEnded = DispatchSemaphore(value: 0)
    private let isStreamClosed = ManagedAtomic<Bool>(false)
    let isClosing = ManagedAtomic<Bool>(false)
    /// The device takes frames far faster than real time (ALSA's `null`, `file` on `null`, an unclocked null stream):
    /// known when it opens, or found by the stream thread after its first periods.
    var isUnclocked = false
    /// The voices or taps in the cycle, held for their owners until the stream thread lets them go.
    let clients = Mutex<[ObjectIdentifier: AnyObject]>([:])

    init(stream: any PCMStream, request: StreamRequest, isOffline: Bool = false) throws(DeviceError) {
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
            SystemThread.detach(name: stream.direction == .playback ? "audio-out" : "audio-in", realtime: stream.isClocked) {
                [self] in runStreamThread()
            }
        }
        // The event thread blocks (a recorder waits for its writer there) and runs owners' code.
        SystemThread.detach(name: "audio-events", realtime: false) { [self] in runEventThread() }
    }

    /// Nanoseconds the stream thread of a device without a clock waits, per period, for a late decoder or writer.
    static let unclockedWait = 10_000_000_000

    /// An offline engine's buffers, for the thread that renders.
    var periodBuffers: PeriodBuffers?

    deinit { periodBuffers?.deallocate() }

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
        let deadline = MonotonicClock.nanoseconds() + Int(timeout * 1e9)
        while clock.isIdle, !errors.isFailed, MonotonicClock.nanoseconds() < deadline {
            MonotonicClock.sleep(nanoseconds: 500_000)
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
        leaveRegistry()
        isClosing.store(true, ordering: .releasing)
        wake()
        streamThreadEnded.wait()
        // Left signalled: whoever else closes finds the thread gone.
        streamThreadEnded.signal()
        guard !isStreamClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stream.close()
    }

    /// Stream thread: it ends, after a failure or as the engine closes.
    func streamThreadDidEnd() {
        streamThreadEnded.signal()
    }
}
