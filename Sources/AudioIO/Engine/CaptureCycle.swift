import Atomics
import SystemEdge

/// The capture cycle: hands one period of device frames to every active tap — mapped to the tap's
/// channels, metered, pushed into its ring — honouring scheduled start frames to the frame, pauses and
/// frame limits, and turning lost input into gaps of known length that the consumer fills with silence.
///
/// **Real-time contract**: ``process(_:frames:firstFrame:)`` and ``deviceDidLose(frames:)`` run on the
/// capture thread. They allocate nothing, take no lock, log nothing and touch no file; they talk to the
/// rest of the process only through atomics and lock-free rings. One exception to "no system call",
/// stated plainly: when a tap's ring has no room, the capture thread sleeps in 100 µs steps, at most
/// ``overflowWait``, for the consumer to catch up, then drops what does not fit and records it as a gap.
/// On a clocked device that only happens when an overrun is near anyway; on an unclocked one (ALSA's
/// `null` and `file`) it is what keeps recordings sample-exact, since the device would outrun the writer.
package final class CaptureCycle: @unchecked Sendable {
    /// How many taps can capture at once.
    static let maximumTaps = 16

    /// The sample format of the device's frames.
    let format: SampleFormat
    /// The device's channels.
    let channelCount: Int
    /// The most frames one period has.
    let maximumFrames: Int
    /// How long, in nanoseconds, a period may wait for room in a tap's ring.
    let overflowWait: Int
    /// Started, finished, overrun and removed taps, for the engine's event thread.
    let events = SPSCRing<CaptureEvent>(minimumCapacity: 1024)

    private let slots: ClientSlots
    private let samples: UnsafeMutableBufferPointer<Float>

    package init(format: SampleFormat, channelCount: Int, maximumFrames: Int, overflowWait: Int) {
        self.format = format
        self.channelCount = channelCount
        self.maximumFrames = maximumFrames
        self.overflowWait = overflowWait
        slots = (0..<Self.maximumTaps).map { _ in ManagedAtomic(nil) }
        samples = .allocate(capacity: maximumFrames * channelCount)
        samples.initialize(repeating: 0)
    }

    deinit { samples.deallocate() }

    /// Control thread: puts `tap` into the cycle, holding a reference to it until the capture thread
    /// reports it ``CaptureEvent/Kind/removed``. Returns false when every slot is taken.
    package func add(_ tap: CaptureTap) -> Bool {
        slots.claim(for: tap)
    }

    /// Whether the device must be read: a tap captures or waits for its start frame. Paused, finished
    /// and removed taps alone let the engine idle.
    var needsCapturing: Bool {
        slots.contains { slot in
            guard let pointer = slot.load(ordering: .acquiring) else { return false }
            return Unmanaged<CaptureTap>.fromOpaque(pointer).takeUnretainedValue().isCapturing
        }
    }

    /// The earliest start frame ≥ 0 of the taps waiting to start, if any.
    var earliestScheduledFrame: Int64? {
        var earliest: Int64?
        for slot in slots {
            guard let pointer = slot.load(ordering: .acquiring) else { continue }
            let tap = Unmanaged<CaptureTap>.fromOpaque(pointer).takeUnretainedValue()
            let start = tap.startFrame.load(ordering: .relaxed)
            if start >= 0, tap.isCapturing, !tap.hasStarted.load(ordering: .relaxed) { earliest = min(earliest ?? start, start) }
        }
        return earliest
    }

    /// Capture thread: hands device frames `firstFrame ..< firstFrame + frames`, read into `input` in the
    /// device's ``format`` and ``channelCount``, to every tap.
    package func process(_ input: UnsafeRawPointer, frames: Int, firstFrame: Int64) {
        let decoded = UnsafeMutableBufferPointer(rebasing: samples[..<(frames * channelCount)])
        SampleConversion.decode(input, as: format, into: decoded)
        forEachTap { tap, pointer in
            deliver(UnsafeBufferPointer(decoded), to: tap, pointer: pointer, firstFrame: firstFrame)
        }
    }

    /// Capture thread: the device lost `frames` frames (an overrun); each capturing tap gets a gap of
    /// that length where they belong.
    func deviceDidLose(frames: Int) {
        forEachTap { tap, pointer in
            guard tap.isCapturing, tap.hasStarted.load(ordering: .relaxed) else { return }
            let delivered = tap.deliveredFrames.load(ordering: .relaxed)
            let count = Int(max(0, min(Int64(frames), tap.frameLimit.load(ordering: .relaxed) - delivered)))
            lose(count, at: delivered, in: tap, pointer: pointer)
            finishDelivery(of: count, to: tap, pointer: pointer, after: delivered)
        }
    }

    /// Capture thread, before each period and while idle: lets go of the taps that ask to be removed;
    /// they get nothing more.
    func releaseRemovedTaps() {
        for slot in slots {
            guard let pointer = slot.load(ordering: .acquiring) else { continue }
            Unmanaged<CaptureTap>.fromOpaque(pointer)._withUnsafeGuaranteedRef { tap in
                guard tap.removalRequested.load(ordering: .acquiring) else { return }
                flushPendingGap(tap)
                tap.hasEnded.store(true, ordering: .releasing)
                // Until the event thread has room for the news, the slot keeps the tap, which gets nothing more.
                if events.push(CaptureEvent(kind: .removed, tap: pointer)) { slot.store(nil, ordering: .releasing) }
            }
        }
    }

    /// Capture thread, as it exits after a device failure: every tap ends here.
    func endAll() {
        for slot in slots {
            guard let pointer = slot.load(ordering: .acquiring) else { continue }
            Unmanaged<CaptureTap>.fromOpaque(pointer).takeUnretainedValue().hasEnded.store(true, ordering: .releasing)
        }
    }

    /// Calls `body` for every tap in the cycle that is not asking to be removed.
    private func forEachTap(_ body: (CaptureTap, UnsafeMutableRawPointer) -> Void) {
        for slot in slots {
            guard let pointer = slot.load(ordering: .acquiring) else { continue }
            Unmanaged<CaptureTap>.fromOpaque(pointer)._withUnsafeGuaranteedRef { tap in
                if !tap.removalRequested.load(ordering: .acquiring) { body(tap, pointer) }
            }
        }
    }

    private func deliver(
        _ decoded: UnsafeBufferPointer<Float>, to tap: CaptureTap, pointer: UnsafeMutableRawPointer, firstFrame: Int64
    ) {
        guard tap.isCapturing else { return }
        let frames = decoded.count / channelCount
        var offset = 0
        if !tap.hasStarted.load(ordering: .relaxed) {
            let start = tap.startFrame.load(ordering: .relaxed)
            if start >= 0 {
                if start >= firstFrame + Int64(frames) { return }
                if start > firstFrame { offset = Int(start - firstFrame) }
            }
            tap.hasStarted.store(true, ordering: .releasing)
            _ = events.push(CaptureEvent(kind: .started, tap: pointer))
        }
        let delivered = tap.deliveredFrames.load(ordering: .relaxed)
        let count = Int(max(0, min(Int64(frames - offset), tap.frameLimit.load(ordering: .relaxed) - delivered)))
        let input = UnsafeBufferPointer(rebasing: decoded[(offset * channelCount)..<((offset + count) * channelCount)])
        let mapped = UnsafeMutableBufferPointer(rebasing: tap.mapped[..<(count * tap.channelCount)])
        tap.channelMap.apply(input, into: mapped)
        if tap.isMeteringEnabled.load(ordering: .relaxed) { meter(UnsafeBufferPointer(mapped), in: tap) }
        if let audio = tap.audio {
            let written = push(UnsafeBufferPointer(mapped), into: audio, of: tap)
            if written < count { lose(count - written, at: delivered + Int64(written), in: tap, pointer: pointer) }
        }
        finishDelivery(of: count, to: tap, pointer: pointer, after: delivered)
    }

    /// Counts `count` frames delivered after `delivered`, finishing the tap at its frame limit.
    private func finishDelivery(of count: Int, to tap: CaptureTap, pointer: UnsafeMutableRawPointer, after delivered: Int64) {
        let total = delivered + Int64(count)
        tap.deliveredFrames.store(total, ordering: .releasing)
        if total >= tap.frameLimit.load(ordering: .relaxed) {
            tap.hasFinished.store(true, ordering: .releasing)
            _ = events.push(CaptureEvent(kind: .finished, tap: pointer))
        }
    }

    /// Adds `frames` to the tap's meter and hands the sums on when its ring has room; otherwise they
    /// keep accumulating, so that the reader still gets every frame's level.
    private func meter(_ frames: UnsafeBufferPointer<Float>, in tap: CaptureTap) {
        tap.meter.add(frames)
        guard tap.levels.availableToWrite >= tap.levelRecord.count else { return }
        tap.meter.write(into: tap.levelRecord)
        tap.levels.write(UnsafeBufferPointer(tap.levelRecord))
        tap.meter.reset()
    }

    /// Writes whole frames of `frames` into `audio`, waiting up to ``overflowWait`` for room; returns the
    /// frames written. Nothing is written while a gap waits to be recorded, so gaps stay in order.
    private func push(_ frames: UnsafeBufferPointer<Float>, into audio: SPSCRing<Float>, of tap: CaptureTap) -> Int {
        flushPendingGap(tap)
        guard tap.pendingGap.frames == 0 else { return 0 }
        let channels = tap.channelCount
        var written = 0
        var waited = 0
        while true {
            let room = audio.availableToWrite / channels * channels
            let end = min(frames.count, written + room)
            written += audio.write(UnsafeBufferPointer(rebasing: frames[written..<end]))
            guard written < frames.count, waited < overflowWait else { break }
            MonotonicClock.sleep(nanoseconds: 100_000)
            waited += 100_000
        }
        return written / channels
    }

    /// Records that `frames` frames of the tap's stream, from `position` on, are lost.
    private func lose(_ frames: Int, at position: Int64, in tap: CaptureTap, pointer: UnsafeMutableRawPointer) {
        guard frames > 0 else { return }
        if tap.pendingGap.frames == 0 {
            tap.pendingGap = CaptureGap(position: position, frames: frames)
        } else {
            // Nothing is written while a gap is pending, so what is lost next continues it.
            tap.pendingGap.frames += frames
        }
        flushPendingGap(tap)
        tap.overruns.wrappingIncrement(ordering: .relaxed)
        _ = events.push(CaptureEvent(kind: .overrun, tap: pointer, frames: frames))
    }

    private func flushPendingGap(_ tap: CaptureTap) {
        guard tap.pendingGap.frames > 0, tap.audio != nil else { return }
        if tap.gaps.push(tap.pendingGap) { tap.pendingGap.frames = 0 }
    }
}
