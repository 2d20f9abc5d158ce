@testable import AudioIO
import Atomics
import Testing

/// The capture cycle driven by hand, a period at a time, with no device: the capture thread's whole job
/// (what a benchmark drives too).
@Suite struct CaptureCycleTests {
    static let period = 480

    /// A cycle for 16-bit stereo devices that never waits for room.
    let cycle = CaptureCycle(format: .int16, channelCount: 2, maximumFrames: period, overflowWait: 0)

    /// A stereo tap that starts at once, with a ring of `capacityFrames` (0: meter only).
    func tap(capacityFrames: Int, start: Int64 = CaptureTap.immediately) -> CaptureTap {
        let tap = CaptureTap(channelCount: 2, channelMap: .identity, periodFrames: Self.period, capacityFrames: capacityFrames)
        tap.startFrame.store(start, ordering: .relaxed)
        #expect(cycle.add(tap))
        return tap
    }

    /// Runs the cycle over device frames `first ..< first + period`, whose samples are `sample(frame, channel)`.
    func process(from first: Int64, _ sample: (Int, Int) -> Int16) {
        var input = [Int16](repeating: 0, count: Self.period * 2)
        for frame in 0..<Self.period {
            input[2 * frame] = sample(Int(first) + frame, 0)
            input[2 * frame + 1] = sample(Int(first) + frame, 1)
        }
        input.withUnsafeBytes { cycle.process($0.baseAddress!, frames: Self.period, firstFrame: first) }
    }

    /// Every event the cycle has reported since the last call.
    func events() -> [CaptureEvent.Kind] {
        var kinds: [CaptureEvent.Kind] = []
        while let event = cycle.events.pop() { kinds.append(event.kind) }
        return kinds
    }

    @Test func aTapMetersExactlyTheFramesSinceTheLastReading() {
        let tap = tap(capacityFrames: 0)
        tap.isMeteringEnabled.store(true, ordering: .relaxed)
        // Left a constant half scale; right a square wave at a quarter.
        for period in 0..<10 { process(from: Int64(period * Self.period)) { frame, channel in channel == 0 ? 16384 : (frame % 2 == 0 ? 8192 : -8192) } }
        let loud = tap.takeLevels()
        #expect(abs(loud.peak[0] + 6.0206) < 0.001 && abs(loud.average[0] + 6.0206) < 0.001)
        #expect(abs(loud.peak[1] + 12.0412) < 0.001 && abs(loud.average[1] + 12.0412) < 0.001)
        for period in 10..<15 { process(from: Int64(period * Self.period)) { _, _ in 0 } }
        #expect(tap.takeLevels() == AudioLevels(peak: [-160, -160], average: [-160, -160]))
        #expect(tap.takeLevels() == AudioLevels(peak: [-160, -160], average: [-160, -160]))
    }

    @Test func aScheduledTapStartsOnItsFrameAndStopsAtItsLimit() {
        let tap = tap(capacityFrames: 4096, start: 1000)
        tap.frameLimit.store(700, ordering: .relaxed)
        for period in 0..<6 { process(from: Int64(period * Self.period)) { frame, channel in Int16(frame) * (channel == 0 ? 1 : -1) } }
        var frames = [Float](repeating: 0, count: 4096)
        let count = frames.withUnsafeMutableBufferPointer { tap.audio!.read(into: $0) } / 2
        #expect(count == 700)
        #expect(frames[0] * 32768 == 1000 && frames[1] * 32768 == -1000)
        #expect(frames[2 * 699] * 32768 == 1699)
        #expect(tap.hasFinished.load(ordering: .relaxed) && !cycle.needsCapturing)
        #expect(events() == [.started, .finished])
    }

    @Test func framesTheWriterHasNoRoomForBecomeAGapOfTheirLengthInOrder() {
        let tap = tap(capacityFrames: 1024)
        for period in 0..<4 { process(from: Int64(period * Self.period)) { frame, _ in Int16(frame) } }
        // 1920 frames offered, 1024 kept: the rest of the third period and all of the fourth are gaps after them.
        #expect(tap.audio!.availableToRead == 2048)
        #expect(tap.gaps.pop().map { [$0.position, Int64($0.frames)] } == [1024, 416])
        #expect(tap.gaps.pop().map { [$0.position, Int64($0.frames)] } == [1440, 480])
        #expect(tap.deliveredFrames.load(ordering: .relaxed) == 1920 && tap.overruns.load(ordering: .relaxed) == 2)
        #expect(events() == [.started, .overrun, .overrun])
        // Once the writer has made room, frames flow again, after the gap.
        tap.audio!.discard(2048)
        process(from: 1920) { frame, _ in Int16(frame) }
        var frames = [Float](repeating: 0, count: 2 * Self.period)
        #expect(frames.withUnsafeMutableBufferPointer { tap.audio!.read(into: $0) } == 2 * Self.period)
        #expect(frames[0] * 32768 == 1920 && tap.gaps.peek() == nil)
    }

    @Test func aDeviceOverrunBecomesAGapInEveryCapturingTap() {
        let recording = tap(capacityFrames: 4096)
        let paused = tap(capacityFrames: 4096)
        process(from: 0) { _, _ in 100 }
        paused.isPaused.store(true, ordering: .relaxed)
        cycle.deviceDidLose(frames: 300)
        #expect(recording.gaps.pop().map { [$0.position, Int64($0.frames)] } == [480, 300])
        #expect(recording.deliveredFrames.load(ordering: .relaxed) == 780)
        #expect(paused.gaps.peek() == nil && paused.deliveredFrames.load(ordering: .relaxed) == 480)
    }

    @Test func aRemovedTapGetsNothingMoreAndItsRemovalIsReported() {
        let tap = tap(capacityFrames: 4096)
        process(from: 0) { _, _ in 1 }
        tap.removalRequested.store(true, ordering: .relaxed)
        cycle.releaseRemovedTaps()
        process(from: 480) { _, _ in 1 }
        #expect(tap.hasEnded.load(ordering: .relaxed) && tap.audio!.availableToRead == 2 * Self.period)
        #expect(events() == [.started, .removed])
    }
}
