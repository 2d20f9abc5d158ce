/// The order of the channels in an Opus or Vorbis file of 3 to 8 channels, against the WAV order every other file has.
///
/// Such a file uses channel mapping family 1 (RFC 7845, 5.1.1.2): Vorbis order, L C R for 3 channels,
/// L C R Ls Rs LFE for 5.1, L C R Ls Rs Lb Rb LFE for 7.1; WAV order is L R C LFE Ls Rs (Lb Rb). libsndfile 1.2
/// writes family 1 for 3 to 8 channels but passes the samples through in whatever order it gets them
/// (`ogg_opus.c` has no channel map), so the writer puts them into Vorbis order and the reader back into WAV
/// order, as opusenc and opusdec do. Vorbis (its specification's section 4.3.9) has the same order, and
/// `ogg_vorbis.c` no map either. 1, 2 and more than 8 channels (family 0 and 255) have one order only.
struct OpusChannelOrder {
    /// Channel `i` of a Vorbis-order frame is channel `wavChannel[i]` of the WAV-order frame.
    private let wavChannel: [Int]
    /// Channel `i` of a WAV-order frame is channel `vorbisChannel[i]` of the Vorbis-order frame.
    private let vorbisChannel: [Int]

    /// The order for `channelCount` channels, or nil when Vorbis and WAV order are the same.
    init?(channelCount: Int) {
        let wavChannel: [Int]
        switch channelCount {
        case 3: wavChannel = [0, 2, 1]
        case 5: wavChannel = [0, 2, 1, 3, 4]
        case 6: wavChannel = [0, 2, 1, 4, 5, 3]
        case 7: wavChannel = [0, 2, 1, 5, 6, 4, 3]
        case 8: wavChannel = [0, 2, 1, 6, 7, 4, 5, 3]
        default: return nil
        }
        self.wavChannel = wavChannel
        vorbisChannel = wavChannel.indices.map { wav in wavChannel.firstIndex(of: wav)! }
    }

    /// Puts the WAV-order frames of `samples` into Vorbis order, in place.
    func wavToVorbis(_ samples: UnsafeMutableBufferPointer<Float>) {
        Self.permute(samples, taking: wavChannel)
    }

    /// Puts the Vorbis-order frames of `samples` into WAV order, in place.
    func vorbisToWAV(_ samples: UnsafeMutableBufferPointer<Float>) {
        Self.permute(samples, taking: vorbisChannel)
    }

    /// Makes channel `i` of each frame what channel `source[i]` was; allocates nothing but a frame on the stack.
    private static func permute(_ samples: UnsafeMutableBufferPointer<Float>, taking source: [Int]) {
        let channels = source.count
        withUnsafeTemporaryAllocation(of: Float.self, capacity: channels) { frame in
            source.withUnsafeBufferPointer { source in
                var start = 0
                while start + channels <= samples.count {
                    for channel in 0..<channels { frame[channel] = samples[start + channel] }
                    for channel in 0..<channels { samples[start + channel] = frame[source[channel]] }
                    start += channels
                }
            }
        }
    }
}
