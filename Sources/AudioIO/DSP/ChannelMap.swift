/// How interleaved frames of one channel count become frames of another.
///
/// Equal counts pass through; mono is copied to every output channel; stereo mixed to mono is the average
/// of its two channels (so a full-scale stereo signal stays full scale). More channels than stereo, mixed to
/// stereo or mono, go through a ``Downmix``: 5.1 and 7.1 with ITU-R BS.775's coefficients, as ffmpeg's
/// `-ac 2` and `-ac 1` do. Other pairs (stereo or more to more channels, or to 3 and more fewer ones) have no
/// obvious meaning and are refused by ``init(from:to:)``.
package enum ChannelMap: Equatable, Sendable {
    case identity
    case duplicateMono(to: Int)
    case averageToMono(from: Int)
    case downmix(Downmix)

    /// The map from `input` to `output` channels, or nil when there is no sensible one.
    init?(from input: Int, to output: Int) {
        if input == output {
            self = .identity
        } else if input == 1 {
            self = .duplicateMono(to: output)
        } else if input == 2, output == 1 {
            // What the stereo row of BS.775 gives too (L and R at −3 dB, normalized), bit for bit cheaper.
            self = .averageToMono(from: 2)
        } else if let downmix = Downmix(from: input, to: output) {
            self = .downmix(downmix)
        } else {
            return nil
        }
    }

    /// The side of a stereo output that input channel `channel` is heard on alone, nil when it is heard on both
    /// (mono, a centre) or neither (an LFE): what pan does to it.
    func side(ofInput channel: Int) -> StereoSide? {
        switch self {
        case .identity: channel == 0 ? .left : channel == 1 ? .right : nil
        case .duplicateMono, .averageToMono: nil
        case .downmix(let downmix): downmix.side(ofInput: channel)
        }
    }

    /// Maps every frame of `input` into `output`, which must have room for them; allocates nothing.
    func apply(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        switch self {
        case .identity:
            _ = output.update(fromContentsOf: input)
        case .duplicateMono(let channels):
            for frame in 0..<input.count {
                for channel in 0..<channels { output[frame * channels + channel] = input[frame] }
            }
        case .averageToMono(let channels):
            let scale = 1 / Float(channels)
            for frame in 0..<input.count / channels {
                var sum: Float = 0
                for channel in 0..<channels { sum += input[frame * channels + channel] }
                output[frame] = sum * scale
            }
        case .downmix(let downmix):
            downmix.apply(input, into: output)
        }
    }
}

/// One side of a stereo output.
enum StereoSide {
    case left, right
}
