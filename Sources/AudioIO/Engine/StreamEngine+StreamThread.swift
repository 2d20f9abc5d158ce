import Atomics
import Dispatch
import SystemEdge

/// The stream thread: it runs the cycle once per period, and otherwise sleeps in the device's transfer or on
/// ``StreamEngine/streamWake`` (a client resumed, paused or asks to be removed; the engine closes).
///
/// **Real-time contract**: everything here runs on the stream thread (an offline engine's periods on the thread that
/// renders them). It allocates nothing (the period's buffers are allocated once, as the thread starts), takes no lock,
/// logs nothing, and makes no system call but the stream's transfers, its delay, drop and drain, the monotonic clock,
/// the semaphore waits between transfers, and the semaphore signal that wakes the event thread when a period put out
/// events. A failed transfer is answered by ``DeviceErrorHandler/handle(_:)`` under the same contract.
extension StreamEngine {
    /// A period's mix in floats and in the stream's format.
    struct PeriodBuffers {
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

    func runStreamThread() {
        defer { streamThreadDidEnd() }
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
                run = (MonotonicClock.nanoseconds(), 0)
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

    /// The events the cycle has put out so far, and the items its voices took up.
    var eventCount: Int {
        switch cycle {
        case .render(let mixer): mixer.events.writeCount &+ mixer.itemsTakenUp
        case .capture(let capture): capture.events.writeCount
        }
    }

    /// Wakes the event thread, which sleeps until it has something to do, when the cycle put out events since
    /// ``eventCount`` was `count`: a few times in a voice's or a tap's life (started, another item or pass, finished,
    /// removed, overrun).
    func tellEventThread(since count: Int) {
        if eventCount != count { eventWake.signal() }
    }

    /// Whether a period must be moved: a client plays or captures, or waits for its start frame.
    var needsRunning: Bool {
        switch cycle {
        case .render(let mixer): mixer.needsRendering
        case .capture(let capture): capture.needsCapturing
        }
    }

    /// Mixes and writes one period (or the first `frames` frames of one); returns the frames written, or nil when the
    /// stream failed.
    func renderPeriod(
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
    func queuedAudioIsUnwanted(_ mixer: Mixer) -> Bool {
        guard queuesLong else {
            mixer.audioWasCut = false
            return false
        }
        mixer.noteCutVoices()
        return mixer.audioWasCut && !mixer.hasSoundingVoices
    }

    /// Drops what the device holds queued, unheard, so that a pause, a seek or a change of rate is heard now rather
    /// than after the queue (hundreds of milliseconds with a long buffer); the clock goes on from what was heard.
    func discardQueuedAudio(_ mixer: Mixer) {
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
        // without audio (whose stream fails the read after a while).
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
        if (MonotonicClock.nanoseconds() - start) * 4 < realTime {
            isUnclocked = true
            mixer.starvationWait.store(Self.unclockedWait, ordering: .relaxed)
        }
    }
}
