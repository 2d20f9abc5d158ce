/// What a player's pitch algorithm does to device-rate frames: changes their speed, by SoundTouch (``TimeStretcher``)
/// or libsoxr (``Varispeed``).
protocol SpeedChanger: AnyObject {
    /// Playback speed: 2 halves the frames.
    var speed: Float { get set }
    /// Feeds interleaved frames and hands every block that is ready (held in `output`) to `emit`.
    func process(
        _ frames: UnsafeBufferPointer<Float>, through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void
    ) throws
    /// After the last input: hands what is still held to `emit`.
    func flush(through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void) throws
}

/// A ``SpeedChanger`` whose output has exactly the length its input is worth: n frames at speed s make n / s frames
/// (rounded, over the whole stream, however the speed changed), so that a file, a range or a loop at 1.5 times ends on
/// the frame it should. SoundTouch pads its last frames with silence and libsoxr's variable rate rounds its own way;
/// what they give beyond that length is cut, and what they give short of it is made up with silence.
///
/// **Not thread-safe**: the decoder thread feeds and drains it.
final class RateStage {
    private let changer: any SpeedChanger
    private let channelCount: Int
    /// Output frames the input so far is worth, at the speeds it went in at.
    private var owed: Double = 0
    private var emitted = 0

    /// A stage changing speed by `algorithm` for `channelCount`-channel frames at `sampleRate` hertz.
    ///
    /// - Throws: `ResamplerError` when libsoxr refuses a varispeed.
    init(_ algorithm: AudioTimePitchAlgorithm, sampleRate: Int, channelCount: Int) throws {
        switch algorithm {
        case .timeDomain: changer = TimeStretcher(sampleRate: sampleRate, channelCount: channelCount)
        case .varispeed: changer = try Varispeed(channelCount: channelCount)
        }
        self.channelCount = channelCount
    }

    var speed: Float {
        get { changer.speed }
        set { if changer.speed != newValue { changer.speed = newValue } }
    }

    /// Feeds `frames` at ``speed`` and hands what is ready to `emit`.
    func process(
        _ frames: UnsafeBufferPointer<Float>, through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void
    ) throws {
        owed += Double(frames.count / channelCount) / Double(speed)
        try changer.process(frames, through: output) { block in
            emitted += block.count / channelCount
            emit(block)
        }
    }

    /// After the last input: hands the rest to `emit`, up to the length owed, made up with silence if short.
    func finish(through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void) throws {
        let total = Int(owed.rounded())
        try changer.flush(through: output) { block in
            let frames = min(block.count / channelCount, max(0, total - emitted))
            guard frames > 0 else { return }
            emitted += frames
            emit(UnsafeBufferPointer(rebasing: block[..<(frames * channelCount)]))
        }
        while emitted < total {
            let frames = min(total - emitted, output.count / channelCount)
            output.baseAddress!.update(repeating: 0, count: frames * channelCount)
            emitted += frames
            emit(UnsafeBufferPointer(rebasing: output[..<(frames * channelCount)]))
        }
    }
}
