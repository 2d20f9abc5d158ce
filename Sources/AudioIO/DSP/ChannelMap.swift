/// How interleaved frames of one channel count become frames of another.
///
/// Equal counts pass through; mono is copied to every output channel; any count mixed to mono is the
/// average of its channels (so a full-scale stereo signal stays full scale). Other pairs have no
/// obvious meaning and are refused by ``init(from:to:)``.
package enum ChannelMap: Equatable {
    case identity
    case duplicateMono(to: Int)
    case averageToMono(from: Int)

    /// The map from `input` to `output` channels, or nil when there is no sensible one.
    init?(from input: Int, to output: Int) {
        if input == output {
            self = .identity
        } else if input == 1 {
            self = .duplicateMono(to: output)
        } else if output == 1 {
            self = .averageToMono(from: input)
        } else {
            return nil
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
        }
    }
}
