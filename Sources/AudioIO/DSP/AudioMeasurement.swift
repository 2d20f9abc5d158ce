/// What a whole file's writer or reader measures of the samples as they pass, in the one pass they make: the levels
/// (``LevelAccumulator``, as sox's `stats`), the waveform (``WaveformBuilder``, as audiowaveform's, within
/// ``Waveform/keptLength`` pixels unless told otherwise) and, when asked, the loudness (``LoudnessMeter``). A recording,
/// an import and a trim measure them this way; nothing reads a file a second time for its loudness or its waveform.
///
/// Not for the audio threads (the loudness meter allocates as it goes, the waveform grows an array). `package` for
/// the benchmarks (`Benchmarks/Loudness`), which time what it adds to a recording.
package struct AudioMeasurement {
    private var levels: LevelAccumulator
    private var waveformBuilder: WaveformBuilder
    private let loudnessMeter: LoudnessMeter?
    /// Frames per second of the audio measured, in hertz.
    package let sampleRate: Double
    /// Frames added so far.
    private var frameCount: Int64 = 0
    /// Called after each ``add(_:)`` with the frames added so far: how far a long conversion has come.
    package var onProgress: ((Int64) -> Void)?

    /// Measures `channelCount` interleaved channels at `sampleRate` Hz, their waveform at `samplesPerPixel` (or wider
    /// to keep within `maximumLength` pixels), and their loudness too when `measuringLoudness`.
    package init(
        channelCount: Int, sampleRate: Double, measuringLoudness: Bool,
        samplesPerPixel: Int = Waveform.standardSamplesPerPixel, keepingAtMost maximumLength: Int? = Waveform.keptLength
    ) {
        self.sampleRate = sampleRate
        levels = LevelAccumulator(channelCount: channelCount)
        waveformBuilder = WaveformBuilder(
            channelCount: channelCount, sampleRate: sampleRate, samplesPerPixel: samplesPerPixel, maximumLength: maximumLength)
        // Without memory for libebur128 the file is still written; its loudness is measured again when asked for.
        loudnessMeter = measuringLoudness ? try? LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate) : nil
    }

    /// Adds interleaved frames.
    package mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        levels.add(samples)
        waveformBuilder.add(samples)
        loudnessMeter?.add(samples)
        frameCount += Int64(samples.count / levels.channelCount)
        onProgress?(frameCount)
    }

    /// The loudness of everything added, or `nil` when it was not measured or libebur128 failed.
    package var loudness: AudioLoudness? { try? loudnessMeter?.loudness() }

    /// The levels of everything added.
    package var measuredLevels: AudioLevels { levels.levels }

    /// The waveform of everything added.
    package var waveform: Waveform { waveformBuilder.waveform }

    /// The summary of a file of `frameCount` frames and `byteCount` bytes that holds what was measured.
    func summary(frameCount: Int64, byteCount: Int64) -> AudioFileSummary {
        AudioFileSummary(
            frameCount: frameCount, sampleRate: sampleRate, channelCount: levels.channelCount,
            levels: levels.levels, waveform: waveform, byteCount: byteCount, loudness: loudness)
    }
}
