import Atomics

/// Frames of input that were lost and are to be filled with silence of the same length, so that a
/// recording keeps its timeline: ``frames`` frames belong after the first ``position`` frames of the
/// tap's audio ring.
struct CaptureGap {
    /// Frames of the tap's stream before the gap (what the ring delivered, counted from 0).
    var position: Int64
    /// Frames missing.
    var frames: Int
}

/// One consumer of an input stream — a recording or a meter: the rings the capture thread fills for it,
/// and the atomics through which its owner steers it.
///
/// **Threads**: the capture thread is the only producer of ``audio``, ``gaps`` and ``levels`` and the
/// only user of the fields marked "capture thread only"; one consumer thread (the recorder's writer, or
/// whoever calls ``takeLevels()``) drains each ring. Everything else is an atomic any thread may read or
/// set.
package final class CaptureTap: @unchecked Sendable {
    /// ``startFrame`` value: not capturing.
    static let notScheduled = Int64.min
    /// ``startFrame`` value: start (or resume) with the next period.
    package static let immediately = Int64(-1)

    /// Channels the tap receives, after ``channelMap``.
    let channelCount: Int
    /// From the device's channels to the tap's.
    let channelMap: ChannelMap
    /// The most frames the capture thread delivers at a time.
    let periodFrames: Int
    /// The captured frames, interleaved; `nil` for a tap that only meters.
    package let audio: SPSCRing<Float>?
    /// Where the capture thread had to drop input.
    let gaps = SPSCRing<CaptureGap>(minimumCapacity: 256)
    /// Level sums (``LevelAccumulator`` records) of what was captured, while metering is enabled.
    package let levels: SPSCRing<Double>
    /// Who is told about its events (on the engine's event thread).
    weak var owner: (any CaptureTapOwner)?

    // Set by the owner, read by the capture thread.
    /// The device frame at which to start: ``notScheduled``, ``immediately`` or a frame ≥ 0. A frame
    /// already captured when the tap reaches the capture thread means "with the next period".
    package let startFrame = ManagedAtomic<Int64>(notScheduled)
    /// The most frames to deliver in all (gaps included); then the tap finishes.
    let frameLimit = ManagedAtomic<Int64>(.max)
    let isPaused = ManagedAtomic<Bool>(false)
    let removalRequested = ManagedAtomic<Bool>(false)
    package let isMeteringEnabled = ManagedAtomic<Bool>(false)

    // Set by the capture thread, read by anyone.
    let hasStarted = ManagedAtomic<Bool>(false)
    /// ``frameLimit`` was reached: nothing more is delivered.
    let hasFinished = ManagedAtomic<Bool>(false)
    /// The capture thread let go of the tap (removed, or the device failed): no ring gets more.
    let hasEnded = ManagedAtomic<Bool>(false)
    /// Frames delivered so far, gaps included: the length of the tap's stream.
    let deliveredFrames = ManagedAtomic<Int64>(0)
    /// Times input was lost: device overruns, and periods the consumer had no room for.
    package let overruns = ManagedAtomic<Int>(0)

    // Capture thread only.
    /// Device channels mapped to the tap's, one period at most.
    let mapped: UnsafeMutableBufferPointer<Float>
    /// Levels of what was captured since the last record was handed to ``levels``.
    var meter: LevelAccumulator
    /// Where ``meter``'s sums are put together before they go into ``levels``.
    let levelRecord: UnsafeMutableBufferPointer<Double>
    /// Frames lost whose gap did not fit into ``gaps`` yet.
    var pendingGap = CaptureGap(position: 0, frames: 0)

    /// A tap of `channelCount` channels, mapped from the device's by `channelMap`, for periods of at most
    /// `periodFrames`, with an audio ring of `capacityFrames` frames (0: a tap that only meters).
    package init(channelCount: Int, channelMap: ChannelMap, periodFrames: Int, capacityFrames: Int) {
        self.channelCount = channelCount
        self.channelMap = channelMap
        self.periodFrames = periodFrames
        audio = capacityFrames > 0 ? SPSCRing(minimumCapacity: capacityFrames * channelCount) : nil
        meter = LevelAccumulator(channelCount: channelCount)
        levels = SPSCRing(minimumCapacity: 64 * meter.recordLength)
        mapped = .allocate(capacity: periodFrames * channelCount)
        mapped.initialize(repeating: 0)
        levelRecord = .allocate(capacity: meter.recordLength)
        levelRecord.initialize(repeating: 0)
    }

    deinit {
        mapped.deallocate()
        levelRecord.deallocate()
    }

    /// Started or waiting for its start frame, and neither paused nor finished.
    var isCapturing: Bool {
        startFrame.load(ordering: .relaxed) != Self.notScheduled && !isPaused.load(ordering: .relaxed)
            && !hasFinished.load(ordering: .relaxed)
    }

    /// Consumer of ``levels``: the levels of everything metered since the previous call, per channel;
    /// silence (−160 dBFS) when nothing was.
    func takeLevels() -> AudioLevels {
        var total = LevelAccumulator(channelCount: channelCount)
        var record = [Double](repeating: 0, count: total.recordLength)
        record.withUnsafeMutableBufferPointer { record in
            while levels.availableToRead >= record.count {
                levels.read(into: record)
                total.merge(UnsafeBufferPointer(record))
            }
        }
        return total.levels
    }
}

/// What the engine tells a tap's owner, on the engine's event thread.
protocol CaptureTapOwner: AnyObject, Sendable {
    /// The tap received its first frame.
    func tapDidStart(_ tap: CaptureTap)
    /// The tap reached its ``CaptureTap/frameLimit``.
    func tapDidFinish(_ tap: CaptureTap)
    /// Input was lost and will be filled with `frames` frames of silence.
    func tapDidOverrun(_ tap: CaptureTap, frames: Int)
    /// The engine's device failed; the tap gets nothing more.
    func tapDidLoseDevice(_ tap: CaptureTap, error: AudioDeviceError)
}
