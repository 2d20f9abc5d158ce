import SystemPackage

/// Copies an Ogg Opus stream packet by packet into a new file, with new comments: no decoding, no encoding, so the
/// audio decodes to exactly the samples it did. libogg (``OggPageReader``, ``OggLogicalStream``) does the framing.
///
/// The identification header (`OpusHead`: channels, pre-skip, output gain, channel mapping) and every audio packet
/// stay byte for byte, each with its granule position, in pages of the same serial number numbered from 0, one
/// written for each page read; the comment header (`OpusTags`) keeps its vendor string and its comments but for the
/// title and date, which take the new ones. A stream cut short (a torn last page, no end-of-stream page: a killed
/// recording) is copied up to its last whole packet and ended there, as ``OpusStreamRepair`` ends it in place.
struct OpusStreamCopy {
    /// Why a stream cannot be copied this way; it can still be decoded and encoded again.
    struct NotCopyable: Error, CustomStringConvertible {
        let description: String
    }

    let source: FileDescriptor
    let destination: FileDescriptor

    /// Copies the stream; `metadata` nil keeps the comments as they are. Returns the bytes written.
    ///
    /// - Throws: ``NotCopyable`` when the source is not one whole Ogg Opus stream (chained, interleaved, damaged
    ///   before its end, headers missing), `Errno` when a file cannot be read or written, ``OggStreamError``.
    func copy(metadata: AudioMetadata?) throws -> Int64 {
        let reader = OggPageReader(descriptor: source)
        var input: OggLogicalStream?
        var output: OggLogicalStream?
        var headerCount = 0
        var pending: [OggPacket] = []
        var written: Int64 = 0
        var damageSeen = false
        /// The rate the markers' frames count in.
        var sampleRate = 48000.0

        func write(_ pages: [OggPage]) throws {
            for page in pages {
                written += Int64(try destination.writeAll(toAbsoluteOffset: written, page.bytes))
            }
        }

        reading: while true {
            switch try reader.next() {
            case .page(let page):
                guard !damageSeen else { throw NotCopyable(description: "it is damaged before its end") }
                if input == nil {
                    guard page.isBeginningOfStream else { throw NotCopyable(description: "it does not begin an Ogg stream") }
                    input = try OggLogicalStream(serialNumber: page.serialNumber)
                    output = try OggLogicalStream(serialNumber: page.serialNumber, firstSequenceNumber: 0)
                }
                guard let input, let output else { continue }
                // A second beginning, even of the same serial number (`cat a.opus a.opus`), is a second stream.
                guard page.serialNumber == input.serialNumber, !page.isBeginningOfStream || page.offset == 0 else {
                    throw NotCopyable(description: page.isBeginningOfStream
                        ? "it chains several Opus streams one after another" : "it interleaves several streams")
                }
                do {
                    try input.add(page)
                    var audio: [OggPacket] = []
                    while var packet = try input.nextPacket() {
                        guard headerCount == 2 else {
                            headerCount += 1
                            if headerCount == 1 {
                                guard packet.data.starts(with: Array("OpusHead".utf8)) else { throw NotCopyable(description: "it is not Opus") }
                                sampleRate = Self.decodingRate(ofHead: packet.data)
                            } else {
                                guard var tags = OpusTags(packet: packet.data) else {
                                    throw NotCopyable(description: "its comment header is damaged")
                                }
                                if let metadata { tags.replace(with: metadata, sampleRate: sampleRate) }
                                packet.data = tags.packet
                            }
                            // Each header on a page of its own: audio begins on a fresh page (RFC 7845 §3).
                            try output.add(packet)
                            try write(output.flush())
                            continue
                        }
                        audio.append(packet)
                    }
                    guard !audio.isEmpty else { continue }
                    // Held back a page: the last packet of all is written ending the stream.
                    if !pending.isEmpty {
                        for packet in pending { try output.add(packet) }
                        try write(output.flush())
                    }
                    pending = OpusStreamRepair.positioned(audio)
                } catch OggStreamError.missingPages {
                    throw NotCopyable(description: "pages are missing in it")
                }
            case .damaged:
                guard input != nil else { throw NotCopyable(description: "it is not an Ogg stream") }
                damageSeen = true
            case .end:
                break reading
            }
        }
        guard let output, headerCount == 2, !pending.isEmpty else { throw NotCopyable(description: "it holds no audio") }
        pending[pending.count - 1].isEndOfStream = true
        for packet in pending { try output.add(packet) }
        try write(output.flush())
        return written
    }

    /// The rate libsndfile decodes a stream at, from its identification header's original rate (RFC 7845 §5.1): the
    /// lowest rate Opus decodes at that is not below it (`ogg_opus_setup_decoder`). ``AudioFile`` counts the stream's
    /// frames, and so its markers, at that rate.
    static func decodingRate(ofHead head: [UInt8]) -> Double {
        let original = head.count >= 16 ? (12..<16).reduce(0) { $0 | Int(head[$1]) << (8 * ($1 - 12)) } : 0
        return AudioSettings.opusSampleRates.first { $0 >= Double(original) } ?? 48000
    }
}
