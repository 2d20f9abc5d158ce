/// Changes speed and pitch together, as a tape played faster, by resampling device-rate frames with libsoxr at a
/// variable ratio: the ``AudioTimePitchAlgorithm/varispeed`` speed change.
///
/// **Not thread-safe**: the decoder thread feeds and drains it.
final class Varispeed: SpeedChanger {
    private let resampler: Resampler
    /// Output frames over which a new speed is reached: 10 ms at 48 kHz, so that a change makes no click.
    private static let slewFrames = 480

    /// - Throws: `ResamplerError` when libsoxr refuses the ratios.
    init(channelCount: Int) throws(ResamplerError) {
        resampler = try Resampler(variableRatioUpTo: Double(PlaybackControls.rates.upperBound), channelCount: channelCount)
    }

    /// Playback speed: 2 is twice as fast and an octave higher. A change after the first frames glides over 10 ms.
    var speed: Float = 1 {
        didSet {
            // Only a failure of libsoxr's own checks (a ratio past the maximum), which the rate's clamp rules out.
            try? resampler.setRatio(Double(speed), slewFrames: hasStarted ? Self.slewFrames : 0)
        }
    }

    private var hasStarted = false

    func process(
        _ frames: UnsafeBufferPointer<Float>, through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void
    ) throws {
        hasStarted = true
        try resampler.processAll(frames, through: output, emit)
    }

    func flush(through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void) throws {
        try resampler.flushAll(through: output, emit)
    }
}
