/// What a whole file's writer or reader measures of the samples as they pass, in the one pass they make: the levels
/// (``LevelAccumulator``) and, when asked, the loudness (``LoudnessMeter``). A recording, an import and a trim measure
/// both this way; nothing reads a file a second time for its loudness.
///
/// Not for the audio threads (the loudness meter allocates as it goes). `package` for the benchmarks
/// (`Benchmarks/Loudness`), which time what it adds to a recording.
package struct AudioMeasurement {
    private var levels: LevelAccumulator
    private let loudnessMeter: LoudnessMeter?

    /// Measures `channelCount` interleaved channels at `sampleRate` Hz; their loudness too when `measuringLoudness`.
    package init(channelCount: Int, sampleRate: Double, measuringLoudness: Bool) {
        levels = LevelAccumulator(channelCount: channelCount)
        // Without memory for libebur128 the file is still written; its loudness is measured again when asked for.
        loudnessMeter = measuringLoudness ? try? LoudnessMeter(channelCount: channelCount, sampleRate: sampleRate) : nil
    }

    /// Adds interleaved frames.
    package mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        levels.add(samples)
        loudnessMeter?.add(samples)
    }

    /// The loudness of everything added, or `nil` when it was not measured or libebur128 failed.
    package var loudness: AudioLoudness? { try? loudnessMeter?.loudness() }

    /// The levels of everything added.
    package var measuredLevels: AudioLevels { levels.levels }
}
