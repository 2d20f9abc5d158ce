import AudioIO
import Glibc

/// The capture thread's work for one device period, on a real ``CaptureCycle`` and real ``CaptureTap``s:
/// what `StreamEngine.capturePeriod` does each period after `snd_pcm_readi` returned.
///
/// The device is what the input engine asks for: signed 32-bit stereo at 48 kHz, 480-frame periods. The
/// taps are those `voicememo record` and `voicememo meter` make: a recording in mono (the channels averaged),
/// with metering on and the recorder's 2-second ring, and optionally a meter-only tap in stereo. ``drain()``
/// is the writer's and the meter reader's share of the work and belongs outside the measured region;
/// ``captureCycle()`` is the capture thread's.
final class CaptureRig {
    static let sampleRate = 48_000
    static let channelCount = 2
    static let periodFrames = 480

    private let cycle: AudioIO.CaptureCycle
    private let taps: [CaptureTap]
    /// One period of device input: a stereo tone at −20 dBFS, as the device hands it over.
    private let input: UnsafeMutableBufferPointer<Int32>
    /// Frames captured so far: the first device frame of the next cycle.
    private var capturedFrames: Int64 = 0

    /// A recording tap, plus a meter-only tap when `withMeter`, capturing from the next cycle on.
    init(withMeter: Bool, ringSeconds: Double = AudioRecorder.ringSeconds) {
        // No wait for a full ring: a dropped period is counted (see `overruns`) instead of slept through.
        cycle = AudioIO.CaptureCycle(
            format: .int32, channelCount: Self.channelCount, maximumFrames: Self.periodFrames, overflowWait: 0)
        let recording = CaptureTap(
            channelCount: 1, channelMap: .averageToMono(from: Self.channelCount), periodFrames: Self.periodFrames,
            capacityFrames: Int(Double(Self.sampleRate) * ringSeconds))
        var taps = [recording]
        if withMeter {
            taps.append(CaptureTap(
                channelCount: Self.channelCount, channelMap: .identity, periodFrames: Self.periodFrames, capacityFrames: 0))
        }
        for tap in taps {
            tap.isMeteringEnabled.store(true, ordering: .relaxed)
            tap.startFrame.store(CaptureTap.immediately, ordering: .releasing)
            let added = cycle.add(tap)
            precondition(added, "the cycle has a slot for every tap of the benchmark")
        }
        self.taps = taps
        input = .allocate(capacity: Self.periodFrames * Self.channelCount)
        for frame in 0..<Self.periodFrames {
            // 100 cycles of 480 frames make 1 kHz exactly: every period holds the same samples.
            let phase = 2 * Double.pi * 1000 * Double(frame) / Double(Self.sampleRate)
            input[frame * 2] = Int32(0.1 * sin(phase) * Double(Int32.max))
            input[frame * 2 + 1] = Int32(0.1 * cos(phase) * Double(Int32.max))
        }
    }

    deinit { input.deallocate() }

    /// Outside the measured region: empties every tap's audio ring, as the recorder's writer thread does,
    /// and its level records, as `updateMeters()` does.
    func drain() {
        for tap in taps {
            if let audio = tap.audio { _ = audio.discard(audio.availableToRead) }
            _ = tap.levels.discard(tap.levels.availableToRead)
        }
    }

    /// The measured work: one period of device input handed to every tap.
    func captureCycle() {
        cycle.process(UnsafeRawPointer(input.baseAddress!), frames: Self.periodFrames, firstFrame: capturedFrames)
        capturedFrames += Int64(Self.periodFrames)
    }

    /// Times a tap lost input, over all taps: not zero means a cycle delivered less than it should have,
    /// and its figures do not count.
    var overruns: Int {
        taps.reduce(0) { $0 + $1.overruns.load(ordering: .relaxed) }
    }
}
