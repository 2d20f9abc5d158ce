/// What is measured of audio while it is written or read through anyway: its levels (as sox's `stats`) and its
/// waveform (as audiowaveform's, within ``Waveform/keptLength`` pixels unless told otherwise), in one pass.
///
/// **Threads**: not for a real-time thread (the waveform grows an array); the recording writer's and the converters'.
struct AudioMeasurement {
    private(set) var levels: LevelAccumulator
    private(set) var waveform: WaveformBuilder
    /// Frames per second of the audio measured, in hertz.
    let sampleRate: Double

    init(
        channelCount: Int, sampleRate: Double, samplesPerPixel: Int = Waveform.standardSamplesPerPixel,
        keepingAtMost maximumLength: Int? = Waveform.keptLength
    ) {
        self.sampleRate = sampleRate
        levels = LevelAccumulator(channelCount: channelCount)
        waveform = WaveformBuilder(
            channelCount: channelCount, sampleRate: sampleRate, samplesPerPixel: samplesPerPixel, maximumLength: maximumLength)
    }

    /// Adds interleaved frames.
    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        levels.add(samples)
        waveform.add(samples)
    }

    /// The summary of a file of `frameCount` frames and `byteCount` bytes that holds what was measured.
    func summary(frameCount: Int64, byteCount: Int64) -> AudioFileSummary {
        AudioFileSummary(
            frameCount: frameCount, sampleRate: sampleRate, channelCount: levels.channelCount,
            levels: levels.levels, waveform: waveform.waveform, byteCount: byteCount)
    }
}
