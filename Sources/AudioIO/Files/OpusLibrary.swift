import COpus

/// Facts about the libopus that libsndfile encodes and decodes Opus with.
enum OpusLibrary {
    /// e.g. "libopus 1.3.1". The corresponding C function is `opus_get_version_string`.
    static var version: String { String(cString: opus_get_version_string()) }
}

extension OpusLibrary {
    /// The samples at 48 kHz an Opus packet decodes to (2.5 to 120 ms of audio), or `nil` when it is no valid packet.
    ///
    /// The corresponding C function is `opus_packet_get_nb_samples`.
    static func sampleCount(ofPacket packet: [UInt8]) -> Int? {
        let count = packet.withUnsafeBufferPointer { $0.isEmpty ? OPUS_INVALID_PACKET : opus_packet_get_nb_samples($0.baseAddress!, Int32($0.count), 48000) }
        return count > 0 ? Int(count) : nil
    }
}

/// Decodes an Opus stream's packets at 48 kHz through libopus' multistream decoder (which decodes mono and stereo
/// streams too), as opusdec does: what ``OpusStreamCopy`` compares a trim with, to cut where the decoder has settled.
///
/// **Not thread-safe**: one thread decodes.
final class OpusPacketDecoder {
    /// Why libopus could not make a decoder for a stream; the corresponding C values are the `OPUS_*` error codes.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let decoder: OpaquePointer
    /// Channels of every frame decoded.
    let channelCount: Int

    /// A decoder for the stream `head` describes (its channels and channel mapping).
    ///
    /// The corresponding C function is `opus_multistream_decoder_create`.
    init(head: OpusHead) throws(Failure) {
        guard let layout = head.streamLayout else { throw Failure(description: "its identification header has no channel mapping") }
        var error: Int32 = OPUS_OK
        let decoder = layout.mapping.withUnsafeBufferPointer {
            opus_multistream_decoder_create(48000, Int32(head.channelCount), Int32(layout.streams), Int32(layout.coupled), $0.baseAddress!, &error)
        }
        guard let decoder, error == OPUS_OK else { throw Failure(description: String(cString: opus_strerror(error))) }
        self.decoder = decoder
        channelCount = head.channelCount
    }

    deinit { opus_multistream_decoder_destroy(decoder) }

    /// The interleaved frames `packet` decodes to, or `nil` when libopus refuses it (a damaged packet).
    ///
    /// The corresponding C function is `opus_multistream_decode_float`.
    func decode(_ packet: [UInt8]) -> [Float]? {
        // 120 ms, the longest a packet holds.
        var frames = [Float](repeating: 0, count: 5760 * channelCount)
        let count = packet.withUnsafeBufferPointer { packet in
            frames.withUnsafeMutableBufferPointer { frames in
                opus_multistream_decode_float(decoder, packet.baseAddress, Int32(packet.count), frames.baseAddress!, 5760, 0)
            }
        }
        guard count > 0 else { return nil }
        frames.removeSubrange((Int(count) * channelCount)...)
        return frames
    }
}
