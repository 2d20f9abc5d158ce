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
