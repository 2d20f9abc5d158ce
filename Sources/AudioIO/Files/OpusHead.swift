/// The identification header of an Opus stream (RFC 7845 §5.1): the magic `OpusHead`, a version, the channel count,
/// the pre-skip (48 kHz samples the decoder drops at the start), the input's rate, the output gain and the channel
/// mapping. Read from its packet and written back into the same bytes, so that a copied stream can take a new pre-skip
/// (a trim) or output gain (a normalization) and keep everything else byte for byte.
struct OpusHead: Equatable {
    /// The header's bytes.
    private(set) var packet: [UInt8]

    private static let magic = Array("OpusHead".utf8)

    /// The header in `packet`, or nil when it is too short to be one or not one (RFC 7845 requires 19 bytes at least).
    init?(packet: [UInt8]) {
        guard packet.count >= 19, packet.starts(with: Self.magic) else { return nil }
        self.packet = packet
    }

    /// Channels the stream decodes to.
    var channelCount: Int { Int(packet[9]) }

    /// Samples at 48 kHz decoded at the start and dropped: the encoder's delay, and what a trim put before its cut.
    var preSkip: Int {
        get { Int(packet[10]) | Int(packet[11]) << 8 }
        set {
            packet[10] = UInt8(truncatingIfNeeded: newValue)
            packet[11] = UInt8(truncatingIfNeeded: newValue >> 8)
        }
    }

    /// The rate libsndfile decodes the stream at, from the header's original rate (bytes 12–15): the lowest rate Opus
    /// decodes at that is not below it (`ogg_opus_setup_decoder`). ``AudioFile`` counts the stream's frames, and so its
    /// markers, at that rate.
    var decodingRate: Double {
        let original = (12..<16).reduce(0) { $0 | Int(packet[$1]) << (8 * ($1 - 12)) }
        return AudioSettings.opusSampleRates.first { $0 >= Double(original) } ?? 48000
    }

    /// The largest pre-skip the header can hold (16 bits).
    static let maximumPreSkip = 65535

    /// The gain a decoder applies to everything it decodes, in dB, in steps of 1/256 dB (Q7.8), −128…+128.
    var outputGain: Double {
        get { Double(Int16(bitPattern: UInt16(packet[16]) | UInt16(packet[17]) << 8)) / 256 }
        set {
            let steps = UInt16(bitPattern: Int16(max(min((newValue * 256).rounded(), Double(Int16.max)), Double(Int16.min))))
            packet[16] = UInt8(truncatingIfNeeded: steps)
            packet[17] = UInt8(truncatingIfNeeded: steps >> 8)
        }
    }

    /// How the channels are coded (RFC 7845 §5.1.1): the streams, how many of them are stereo, and which decoded channel
    /// each output channel is; `nil` when the header is too short for its mapping or names none of 1 or 2 channels
    /// for family 0.
    var streamLayout: (streams: Int, coupled: Int, mapping: [UInt8])? {
        let channels = channelCount
        guard packet[18] != 0 else {
            return (1...2).contains(channels) ? (1, channels - 1, Array(0..<UInt8(channels))) : nil
        }
        guard channels > 0, packet.count >= 21 + channels else { return nil }
        return (Int(packet[19]), Int(packet[20]), Array(packet[21..<(21 + channels)]))
    }
}
