/// A mix of more channels down to stereo or mono, as a matrix of gains computed once.
///
/// The channels are taken to be the speakers of the standard layout for their count, in WAV (and FLAC)
/// order, the layout ffmpeg gives such a file: 3 is L R LFE ("2.1"), 4 is L R Ls Rs (quad, what field
/// recorders and sox write), 5 is L R C Ls Rs, 6 is 5.1 (L R C LFE Ls Rs), 7 is 6.1 (L R C LFE Cs Ls Rs) and 8 is
/// 7.1 (L R C LFE Lb Rb Ls Rs). To stereo, ITU-R BS.775: L' = L + 0.7071·C + 0.7071·Ls (+ 0.7071·Lb), R'
/// likewise, a centre surround at 0.5 to both. The LFE channel is dropped, as BS.775 and ffmpeg drop it: it
/// holds what the main speakers' bass management would take again. To mono, ffmpeg's gains: C at 1, L and R
/// at 0.7071, each surround at 0.5 (for 5.1, the BS.775 stereo mix summed at −3 dB each). More than 8 channels have no standard layout; they are
/// taken as pairs, odd channels left and even ones right (ffmpeg refuses them), and mixed to mono equally.
///
/// Each output row is then divided by the sum of its gains, so that no output can exceed full scale when
/// the inputs do not: what libswresample does by default for an integer output (ffmpeg `-ac 2` to WAV or
/// FLAC). The result matches ffmpeg's within its rounding.
package struct Downmix: Equatable, Sendable {
    /// What a channel of a layout is, as far as a downmix (or a loudness meter's weighting) cares.
    enum Speaker {
        case left, right, center, lowFrequency, leftSurround, rightSurround, centerSurround

        /// Gains into stereo's left and right.
        var stereoGains: (Double, Double) {
            switch self {
            case .left: (1, 0)
            case .right: (0, 1)
            case .center: (Downmix.minus3dB, Downmix.minus3dB)
            case .lowFrequency: (0, 0)
            case .leftSurround: (Downmix.minus3dB, 0)
            case .rightSurround: (0, Downmix.minus3dB)
            case .centerSurround: (0.5, 0.5)
            }
        }

        /// Gain into mono, as in ffmpeg's matrix for mono.
        var monoGain: Double {
            switch self {
            case .left, .right: Downmix.minus3dB
            case .center: 1
            case .lowFrequency: 0
            case .leftSurround, .rightSurround, .centerSurround: 0.5
            }
        }
    }

    private static let minus3dB = 0.5.squareRoot()

    let inputCount: Int
    let outputCount: Int
    /// Row-major: output channel `o` is the sum of input channel `i` times `gains[o * inputCount + i]`.
    let gains: [Float]

    /// The downmix from `input` channels to `output` (1 or 2), or nil for any other pair.
    init?(from input: Int, to output: Int) {
        guard input > output, input > 2, output == 1 || output == 2 else { return nil }
        let speakers = Self.layout(channelCount: input)
        let rows: [[Double]] = output == 2
            ? [speakers.map(\.stereoGains.0), speakers.map(\.stereoGains.1)]
            : [speakers.map(\.monoGain)]
        inputCount = input
        outputCount = output
        gains = rows.flatMap { row in
            let sum = row.reduce(0, +)
            return row.map { Float($0 / sum) }
        }
    }

    /// The speakers of the standard layout for `channelCount` channels, in file order.
    static func layout(channelCount: Int) -> [Speaker] {
        switch channelCount {
        case 3: [.left, .right, .lowFrequency]
        case 4: [.left, .right, .leftSurround, .rightSurround]
        case 5: [.left, .right, .center, .leftSurround, .rightSurround]
        case 6: [.left, .right, .center, .lowFrequency, .leftSurround, .rightSurround]
        case 7: [.left, .right, .center, .lowFrequency, .centerSurround, .leftSurround, .rightSurround]
        case 8: [.left, .right, .center, .lowFrequency, .leftSurround, .rightSurround, .leftSurround, .rightSurround]
        default: (0..<channelCount).map { $0 % 2 == 0 ? .left : .right }
        }
    }

    /// The side input channel `channel` is heard on alone when the output is stereo; nil on both or neither.
    func side(ofInput channel: Int) -> StereoSide? {
        guard outputCount == 2 else { return nil }
        switch (gains[channel] > 0, gains[inputCount + channel] > 0) {
        case (true, false): return .left
        case (false, true): return .right
        default: return nil
        }
    }

    /// Mixes every frame of `input` (``inputCount`` channels) into `output` (``outputCount``), which must have
    /// room for them; allocates nothing.
    func apply(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        let (inputs, outputs) = (inputCount, outputCount)
        gains.withUnsafeBufferPointer { gains in
            for frame in 0..<input.count / inputs {
                let source = frame * inputs
                for channel in 0..<outputs {
                    let row = channel * inputs
                    var sum: Float = 0
                    for index in 0..<inputs { sum += input[source + index] * gains[row + index] }
                    output[frame * outputs + channel] = sum
                }
            }
        }
    }
}
