import Atomics
import Dispatch
import Glibc
import Synchronization

/// One ALSA capture stream and the capture thread that reads it into every tap (recording or meter)
/// listening on it.
///
/// There is one engine per device name in a process, created when a recorder or meter first needs it:
/// taps that share a device share its clock, which is what makes `record(atTime:)` start them on the
/// same frame. The device is read only while a tap captures or waits for its start: a microphone file
/// (ALSA's `file` PCM with an infile) gives its first frame to the first recording. When no tap
/// captures, the engine stops the device and sleeps; its clock keeps running on the system's monotonic
/// clock meanwhile, and a scheduled start wakes it in time for its frame.
///
/// Three threads meet here: control threads (recorders, meters) add taps; the capture thread
/// (`SCHED_FIFO` when allowed and the device has a clock) reads periods and runs the ``CaptureCycle``,
/// never touching a file; the event thread, an ordinary one, delivers the capture thread's events to the
/// taps' owners.
///
/// An overrun (the device's buffer filled before the capture thread read it) is recovered on the
/// capture thread. Its length is estimated from the device clock: the frames that should have been
/// captured since the last read, which the device dropped, become a gap of that length in every tap,
/// filled with silence by the recorder, so a recording keeps its timeline and the loss is reported.
final class InputEngine: @unchecked Sendable {
    /// What a meter asks of a device it opens: 48 kHz, and 32-bit samples, exact for 16- and 24-bit devices.
    static func meterRequest(channels: Int) -> PCMRequest {
        PCMRequest(sampleRate: 48000, channelCount: channels, formats: [.int32, .float32, .int16])
    }

    /// How long, in nanoseconds, the capture thread of a device without a clock waits for room in a tap's ring.
    static let unclockedOverflowWait = 10_000_000_000

    /// Periods per second asked of the device: 10 ms each.
    static let periodsPerSecond = 100
    /// Periods in the device buffer.
    static let periods = 4

    let deviceName: String
    let configuration: PCMConfiguration
    let cycle: CaptureCycle
    var sampleRate: Double { Double(configuration.sampleRate) }

    private let device: PCMDevice
    private let captureWake = DispatchSemaphore(value: 0)
    private let eventWake = DispatchSemaphore(value: 0)
    /// Device frames read so far, overrun gaps included.
    private let framesRead = ManagedAtomic<Int64>(0)
    /// Device frames captured at ``capturedAt``: read plus waiting in the device.
    private let capturedFrames = ManagedAtomic<Int64>(0)
    private let capturedAt = ManagedAtomic<Int>(0)
    private let isIdle = ManagedAtomic<Bool>(true)
    private let idleFrames = ManagedAtomic<Int64>(0)
    private let idleSince = ManagedAtomic<Int>(Mixer.nanoseconds())
    private let failureCode = ManagedAtomic<Int32>(0)
    private let liveTaps = Mutex<[ObjectIdentifier: CaptureTap]>([:])
    private let suspension = DeviceSuspension()

    private static let engines = Mutex<[String: InputEngine]>([:])

    /// The engine of `deviceName`, opening the device as `request` asks (or as near as it takes) if nothing
    /// captures from it yet: the first recorder or meter of a device sets its format, and the others convert.
    static func engine(for deviceName: String, asking request: PCMRequest) throws(AudioDeviceError) -> InputEngine {
        var opened = false
        let result: Result<InputEngine, AudioDeviceError> = engines.withLock { engines in
            if let engine = engines[deviceName] { return .success(engine) }
            do throws(ALSAError) {
                let engine = try InputEngine(deviceName: deviceName, request: request)
                engines[deviceName] = engine
                opened = true
                return .success(engine)
            } catch {
                return .failure(AudioDeviceError(device: deviceName, operation: .open, underlying: error))
            }
        }
        if opened { AudioSession.shared.streamOpened(deviceName, output: false) }
        return try result.get()
    }

    /// Waits, up to `timeout` seconds, until every engine with no tap capturing has stopped its device:
    /// after an interruption paused the recorders, a capture thread must not be left in a read that the
    /// process stopping would turn into an overrun, heard later as silence in a resumed recording.
    static func waitUntilPausedEnginesStop(timeout: Double) {
        let all = engines.withLock { Array($0.values) }
        let deadline = Mixer.nanoseconds() + Int(timeout * 1e9)
        for engine in all {
            while !engine.isIdle.load(ordering: .acquiring), !engine.cycle.needsCapturing, engine.failure == nil,
                  Mixer.nanoseconds() < deadline {
                usleep(1000)
            }
        }
    }

    private init(deviceName: String, request: PCMRequest) throws(ALSAError) {
        device = try PCMDevice(name: deviceName, direction: .capture)
        configuration = try device.configure(
            request, periodFrames: max(64, request.sampleRate / Self.periodsPerSecond), periods: Self.periods)
        self.deviceName = deviceName
        // Waiting up to half a period for a late writer costs nothing on a clocked device (the buffer holds
        // several). A device without a clock (ALSA's `file` and `null`) loses nothing by waiting for as long as a
        // writer needs, and must not race past a slow one: its recordings stay sample-exact on a busy machine.
        let periodNanoseconds = configuration.periodFrames * 1_000_000_000 / configuration.sampleRate
        cycle = CaptureCycle(
            format: configuration.format, channelCount: configuration.channelCount,
            maximumFrames: configuration.periodFrames,
            overflowWait: device.isClocked ? periodNanoseconds / 2 : Self.unclockedOverflowWait)
        RealtimeThread.start(name: "audio-in", realtime: device.isClocked) { [self] in captureLoop() }
        // The event thread blocks (a recorder waits for its writer there) and runs delegates' code.
        RealtimeThread.start(name: "audio-in-events", realtime: false) { [self] in eventLoop() }
    }

    /// Seconds on the device's clock: frames captured over the rate, continued by the monotonic clock
    /// between reads and while idle.
    var deviceCurrentTime: Double {
        let now = Mixer.nanoseconds()
        if isIdle.load(ordering: .acquiring) {
            let elapsed = Double(now - idleSince.load(ordering: .relaxed)) / 1e9
            return Double(idleFrames.load(ordering: .relaxed)) / sampleRate + elapsed
        }
        let captured = Double(capturedFrames.load(ordering: .relaxed))
        let elapsed = Double(now - capturedAt.load(ordering: .relaxed)) / 1e9
        return (captured + elapsed * sampleRate) / sampleRate
    }

    /// The device frame at `deviceTime` seconds on this engine's clock.
    func frame(at deviceTime: Double) -> Int64 { Int64(frames: deviceTime, rate: sampleRate) }

    /// Puts `tap` into the capture cycle. Throws when the device has failed or every slot is taken.
    func add(_ tap: CaptureTap) throws(AudioDeviceError) {
        if let failure { throw failure }
        guard cycle.add(tap) else {
            throw AudioDeviceError(device: deviceName, operation: .stream, underlying: ALSAError(code: EBUSY, function: "capture"))
        }
        liveTaps.withLock { $0[ObjectIdentifier(tap)] = tap }
        captureWake.signal()
        eventWake.signal()
    }

    /// Wakes the capture thread, e.g. after a tap was resumed or asked to be removed on an idle engine.
    func wakeCapture() {
        captureWake.signal()
    }

    /// The failure that stopped the device, if it has stopped.
    var failure: AudioDeviceError? {
        let code = failureCode.load(ordering: .acquiring)
        guard code != 0 else { return nil }
        return AudioDeviceError(device: deviceName, operation: .stream, underlying: ALSAError(code: code, function: "snd_pcm_readi"))
    }

    // MARK: Capture thread

    private func captureLoop() {
        let frames = configuration.periodFrames
        let input = UnsafeMutableRawPointer.allocate(
            byteCount: frames * configuration.channelCount * configuration.format.bytesPerSample, alignment: 16)
        defer { input.deallocate() }
        while true {
            cycle.releaseRemovedTaps()
            if !cycle.needsCapturing {
                enterIdle()
                captureWake.wait()
                continue
            }
            if isIdle.load(ordering: .relaxed) { leaveIdle() }
            let first = framesRead.load(ordering: .relaxed)
            let got: Int
            do {
                got = try device.read(into: input, frames: frames)
            } catch where error.isSuspended {
                // Waiting for the system to resume takes sleeping: the event thread does it. The session
                // paused the recorders meanwhile, so the suspended time is no gap in their files.
                if let failure = suspension.handOver(waking: eventWake) { return fail(failure) }
                continue
            } catch where error.isXrun {
                do { try device.recover(from: error) } catch { return fail(error) }
                let lost = max(0, frame(at: deviceCurrentTime) - first)
                cycle.deviceDidLose(frames: Int(lost))
                framesRead.store(first + lost, ordering: .relaxed)
                continue
            } catch {
                return fail(error)
            }
            // A device that answers at once without audio (a sound server's stream in a broken state) fails
            // the read after a while (``PCMDevice/emptyTransferLimit``) rather than keep this thread spinning.
            guard got > 0 else { continue }
            cycle.process(input, frames: got, firstFrame: first)
            framesRead.store(first + Int64(got), ordering: .relaxed)
            capturedFrames.store(first + Int64(got) + Int64(device.delay()), ordering: .relaxed)
            capturedAt.store(Mixer.nanoseconds(), ordering: .releasing)
        }
    }

    /// Nothing to capture: stop the device, then run the clock on the monotonic clock.
    private func enterIdle() {
        guard !isIdle.load(ordering: .relaxed) else { return }
        device.stop()
        idleFrames.store(frame(at: deviceCurrentTime), ordering: .relaxed)
        idleSince.store(Mixer.nanoseconds(), ordering: .relaxed)
        isIdle.store(true, ordering: .releasing)
    }

    /// Something to capture: wait for the earliest scheduled start, then continue the frame count from
    /// the idle clock so that device time never jumps. The device starts with the first read; what it
    /// held from before (a sound server keeps capturing for a prepared stream) is dropped first, so that
    /// the first frame is from now.
    private func leaveIdle() {
        while let start = cycle.earliestScheduledFrame, frame(at: deviceCurrentTime) < start {
            let wait = Double(start - frame(at: deviceCurrentTime)) / sampleRate
            _ = captureWake.wait(timeout: .now() + min(wait, 0.005))
        }
        device.stop()
        let now = frame(at: deviceCurrentTime)
        framesRead.store(now, ordering: .relaxed)
        capturedFrames.store(now, ordering: .relaxed)
        capturedAt.store(Mixer.nanoseconds(), ordering: .relaxed)
        isIdle.store(false, ordering: .releasing)
    }

    private func fail(_ error: ALSAError) {
        _ = Self.engines.withLock { $0.removeValue(forKey: deviceName) }
        // The failure first: a tap added from now on is refused, and every tap added before ends here.
        failureCode.store(error.code, ordering: .releasing)
        cycle.endAll()
        eventWake.signal()
    }

    // MARK: Event thread

    private func eventLoop() {
        while true {
            let hasLiveTaps = liveTaps.withLock { !$0.isEmpty }
            if hasLiveTaps {
                // Events wait at most 20 ms: nothing here is timed finer, and each wake-up costs.
                _ = eventWake.wait(timeout: .now() + .milliseconds(20))
            } else {
                eventWake.wait()
            }
            while let event = cycle.events.pop() {
                let tap = Unmanaged<CaptureTap>.fromOpaque(event.tap)
                let owner = tap.takeUnretainedValue().owner
                switch event.kind {
                case .started: owner?.tapDidStart(tap.takeUnretainedValue())
                case .finished: owner?.tapDidFinish(tap.takeUnretainedValue())
                case .overrun: owner?.tapDidOverrun(tap.takeUnretainedValue(), frames: event.frames)
                case .removed:
                    _ = liveTaps.withLock { $0.removeValue(forKey: ObjectIdentifier(tap.takeUnretainedValue())) }
                    tap.release()
                }
            }
            suspension.resumeIfSuspended(device)
            if let failure {
                AudioSession.shared.streamFailed(deviceName, output: false, error: failure.underlying)
                let taps = liveTaps.withLock { Array($0.values) }
                for tap in taps { tap.owner?.tapDidLoseDevice(tap, error: failure.underlying) }
                liveTaps.withLock { $0.removeAll() }
                return
            }
        }
    }
}
