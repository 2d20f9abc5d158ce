import Atomics
import Dispatch
import Glibc
import Synchronization

/// One ALSA playback stream and the render thread that feeds it the mix of every voice playing on it.
///
/// There is one engine per device name in a process, created when a player first needs it: players that
/// share a device share its clock, which is what makes `play(atTime:)` start them on the same frame.
/// When nothing plays, the engine drains the device and sleeps; its clock keeps running on the system's
/// monotonic clock meanwhile, and a scheduled start wakes it in time for its frame.
///
/// Three threads meet here: control threads (players) add voices; the render thread (`SCHED_FIFO` when
/// allowed) mixes and writes; the event thread delivers the render thread's events and ticks players'
/// time observers about every 5 ms (every 20 ms while no player has one).
final class OutputEngine: @unchecked Sendable {
    /// The rate asked of the device; it may agree on another, which players then resample to.
    static let preferredSampleRate = 48000
    /// Frames per period asked of the device: 10 ms at 48 kHz.
    static let preferredPeriodFrames = 480
    /// Periods in the device buffer.
    static let periods = 4

    let deviceName: String
    let configuration: PCMConfiguration
    let mixer: Mixer
    var sampleRate: Double { Double(configuration.sampleRate) }

    /// Frames written but not yet heard at the last write (the device's queue, a sound server's included).
    let queuedFrames = ManagedAtomic<Int>(0)

    /// Underruns recovered since the engine started.
    let underruns = ManagedAtomic<Int>(0)

    private let device: PCMDevice
    private let renderWake = DispatchSemaphore(value: 0)
    private let eventWake = DispatchSemaphore(value: 0)
    private let framesWritten = ManagedAtomic<Int64>(0)
    private let playedFrames = ManagedAtomic<Int64>(0)
    private let playedAt = ManagedAtomic<Int>(0)
    private let isIdle = ManagedAtomic<Bool>(true)
    private let idleFrames = ManagedAtomic<Int64>(0)
    private let idleSince = ManagedAtomic<Int>(Mixer.nanoseconds())
    private let failureCode = ManagedAtomic<Int32>(0)
    /// The device takes frames far faster than real time (ALSA's `null`, `file` on `null`).
    private(set) var isUnclocked = false
    private let liveVoices = Mutex<[ObjectIdentifier: Voice]>([:])
    private let suspension = DeviceSuspension()

    private static let engines = Mutex<[String: OutputEngine]>([:])

    /// The engine of `deviceName`, opening the device if no player uses it yet.
    static func engine(for deviceName: String) throws(AudioDeviceError) -> OutputEngine {
        var opened = false
        let result: Result<OutputEngine, AudioDeviceError> = engines.withLock { engines in
            if let engine = engines[deviceName] { return .success(engine) }
            do throws(ALSAError) {
                let engine = try OutputEngine(deviceName: deviceName)
                engines[deviceName] = engine
                opened = true
                return .success(engine)
            } catch {
                return .failure(AudioDeviceError(device: deviceName, operation: .open, underlying: error))
            }
        }
        if opened { AudioSession.shared.streamOpened(deviceName, output: true) }
        return try result.get()
    }

    private init(deviceName: String) throws(ALSAError) {
        device = try PCMDevice(name: deviceName, direction: .playback)
        configuration = try device.configure(
            PCMRequest(sampleRate: Self.preferredSampleRate, channelCount: 2, formats: [.int32, .float32, .int16]),
            periodFrames: Self.preferredPeriodFrames, periods: Self.periods)
        // Voices are mono or stereo: a device that insists on more channels is not one to play on.
        guard (1...2).contains(configuration.channelCount) else {
            throw ALSAError(code: EINVAL, function: "snd_pcm_hw_params_set_channels_near")
        }
        self.deviceName = deviceName
        // Waiting up to two periods for a late decoder costs nothing on a clocked device (the buffer holds
        // more); an unclocked one (ALSA's null and file PCMs, or one found to be so, see `noteSpeed`) waits
        // up to 2 s, as no one listens: a gap there would only spoil what it writes.
        let periodNanoseconds = configuration.periodFrames * 1_000_000_000 / configuration.sampleRate
        isUnclocked = !device.isClocked
        mixer = Mixer(
            channelCount: configuration.channelCount, maximumFrames: configuration.periodFrames,
            starvationWait: isUnclocked ? Self.unclockedStarvationWait : 2 * periodNanoseconds)
        RealtimeThread.start(name: "audio-out") { [self] in renderLoop() }
        RealtimeThread.start(name: "audio-events") { [self] in eventLoop() }
    }

    /// Seconds on the device's clock: frames played (written minus those still queued) over the rate,
    /// continued by the monotonic clock between writes and while idle.
    var deviceCurrentTime: Double {
        let now = Mixer.nanoseconds()
        if isIdle.load(ordering: .acquiring) {
            let elapsed = Double(now - idleSince.load(ordering: .relaxed)) / 1e9
            return Double(idleFrames.load(ordering: .relaxed)) / sampleRate + elapsed
        }
        let played = Double(playedFrames.load(ordering: .relaxed))
        let elapsed = Double(now - playedAt.load(ordering: .relaxed)) / 1e9
        let estimate = min(played + elapsed * sampleRate, Double(framesWritten.load(ordering: .relaxed)))
        return estimate / sampleRate
    }

    /// The device frame at `deviceTime` seconds on this engine's clock (`deviceTime` finite, under 10⁹ s).
    func frame(at deviceTime: Double) -> Int64 { Int64(frames: deviceTime, rate: sampleRate) }

    /// Puts `voice` into the mix. Throws when the device has failed or every slot is taken.
    func add(_ voice: Voice) throws(AudioDeviceError) {
        if let failure = failure { throw failure }
        guard mixer.add(voice) else {
            throw AudioDeviceError(device: deviceName, operation: .stream, underlying: ALSAError(code: EBUSY, function: "mix"))
        }
        liveVoices.withLock { $0[ObjectIdentifier(voice)] = voice }
        renderWake.signal()
        eventWake.signal()
    }

    /// Wakes the render thread, e.g. after a voice paused on an idle engine is resumed.
    func wakeRenderer() {
        renderWake.signal()
    }

    /// The failure that stopped the device, if it has stopped.
    var failure: AudioDeviceError? {
        let code = failureCode.load(ordering: .acquiring)
        guard code != 0 else { return nil }
        return AudioDeviceError(device: deviceName, operation: .stream, underlying: ALSAError(code: code, function: "snd_pcm_writei"))
    }

    // MARK: Render thread

    private func renderLoop() {
        let samples = configuration.periodFrames * configuration.channelCount
        let mix = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples)
        let encoded = UnsafeMutableRawPointer.allocate(
            byteCount: samples * configuration.format.bytesPerSample, alignment: 16)
        let bytesPerFrame = configuration.channelCount * configuration.format.bytesPerSample
        var run = (startedAt: 0, frames: 0)
        while true {
            if !mixer.needsRendering {
                enterIdle()
                renderWake.wait()
                continue
            }
            if isIdle.load(ordering: .relaxed) {
                leaveIdle()
                run = (Mixer.nanoseconds(), 0)
            }
            let first = framesWritten.load(ordering: .relaxed)
            let frames = configuration.periodFrames
            mixer.render(into: mix, frames: frames, firstFrame: first)
            SampleConversion.encode(UnsafeBufferPointer(mix), as: configuration.format, into: encoded)
            var done = 0
            while done < frames {
                do {
                    done += try device.write(encoded + done * bytesPerFrame, frames: frames - done)
                } catch where error.isXrun {
                    underruns.wrappingIncrement(ordering: .relaxed)
                    do { try device.recover(from: error) } catch { return fail(error) }
                } catch where error.isSuspended {
                    // Waiting for the system to resume takes sleeping: the event thread does it.
                    if let failure = suspension.handOver(waking: eventWake) { return fail(failure) }
                } catch {
                    return fail(error)
                }
            }
            framesWritten.store(first + Int64(frames), ordering: .relaxed)
            let delay = device.delay()
            queuedFrames.store(delay, ordering: .relaxed)
            playedFrames.store(first + Int64(frames) - Int64(delay), ordering: .relaxed)
            playedAt.store(Mixer.nanoseconds(), ordering: .releasing)
            run.frames += frames
            noteSpeed(since: run.startedAt, frames: run.frames, queued: delay)
        }
    }

    /// Nanoseconds an unclocked device's render thread waits for a late decoder per period.
    static let unclockedStarvationWait = 2_000_000_000

    /// After 16 periods, a device that took them in under a quarter of their duration and holds none of them
    /// has no clock: from then on a starved voice is waited for (up to 2 s) instead of being heard as a gap,
    /// as no one listens. (A sound server may also take the first periods fast, but it holds them queued.)
    private func noteSpeed(since start: Int, frames: Int, queued: Int) {
        guard !isUnclocked, queued == 0, frames >= 16 * configuration.periodFrames else { return }
        let realTime = frames * 1_000_000_000 / configuration.sampleRate
        if (Mixer.nanoseconds() - start) * 4 < realTime {
            isUnclocked = true
            mixer.starvationWait.store(Self.unclockedStarvationWait, ordering: .relaxed)
        }
    }

    /// Nothing to play: let the device play out what it holds, then run the clock on the monotonic clock.
    private func enterIdle() {
        guard !isIdle.load(ordering: .relaxed) else { return }
        device.drain()
        queuedFrames.store(0, ordering: .relaxed)
        idleFrames.store(framesWritten.load(ordering: .relaxed), ordering: .relaxed)
        idleSince.store(Mixer.nanoseconds(), ordering: .relaxed)
        isIdle.store(true, ordering: .releasing)
    }

    /// Something to play: wait for the earliest scheduled start (less the device's latency), then continue
    /// the frame count from the idle clock so that device time never jumps.
    private func leaveIdle() {
        let latency = Int64(configuration.bufferFrames)
        while let start = mixer.startFrameToWaitFor, frame(at: deviceCurrentTime) < start - latency {
            let wait = Double(start - latency - frame(at: deviceCurrentTime)) / sampleRate
            _ = renderWake.wait(timeout: .now() + min(wait, 0.005))
        }
        let now = frame(at: deviceCurrentTime)
        framesWritten.store(now, ordering: .relaxed)
        playedFrames.store(now, ordering: .relaxed)
        playedAt.store(Mixer.nanoseconds(), ordering: .relaxed)
        isIdle.store(false, ordering: .releasing)
    }

    private func fail(_ error: ALSAError) {
        _ = Self.engines.withLock { $0.removeValue(forKey: deviceName) }
        failureCode.store(error.code, ordering: .releasing)
        eventWake.signal()
    }

    // MARK: Event thread

    private func eventLoop() {
        while true {
            let (hasLiveVoices, wantsTicks) = liveVoices.withLock { voices in
                (!voices.isEmpty, voices.values.contains { $0.wantsTicks.load(ordering: .relaxed) })
            }
            if hasLiveVoices {
                // Events wait at most a tick. Fine ticks only for time observers: 200 wake-ups a second are a
                // tenth of what playing on a sound server costs.
                _ = eventWake.wait(timeout: .now() + .milliseconds(wantsTicks ? 5 : 20))
            } else {
                eventWake.wait()
            }
            while let event = mixer.events.pop() {
                let voice = Unmanaged<Voice>.fromOpaque(event.voice)
                switch event.kind {
                case .started: voice.takeUnretainedValue().owner?.voiceDidStart(voice.takeUnretainedValue())
                case .finished:
                    // A last tick first: an unclocked device may mix a whole file between two ticks.
                    voice.takeUnretainedValue().owner?.voiceDidTick(voice.takeUnretainedValue())
                    voice.takeUnretainedValue().owner?.voiceDidFinish(voice.takeUnretainedValue())
                case .itemStarted: voice.takeUnretainedValue().owner?.voiceDidStartItem(voice.takeUnretainedValue())
                case .removed:
                    _ = liveVoices.withLock { $0.removeValue(forKey: ObjectIdentifier(voice.takeUnretainedValue())) }
                    voice.release()
                }
            }
            suspension.resumeIfSuspended(device)
            let voices = liveVoices.withLock { Array($0.values) }
            if let failure {
                AudioSession.shared.streamFailed(deviceName, output: true, error: failure.underlying)
                for voice in voices { voice.owner?.voiceDidLoseDevice(voice, error: failure.underlying) }
                liveVoices.withLock { $0.removeAll() }
                return
            }
            for voice in voices { voice.owner?.voiceDidTick(voice) }
        }
    }
}
