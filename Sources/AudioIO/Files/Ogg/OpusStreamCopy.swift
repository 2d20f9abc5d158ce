import SystemPackage

/// Copies an Ogg Opus stream packet by packet into a new file, with edits: new comments, a new output gain, only a
/// range of its samples. No decoding, no encoding: every audio packet kept stays byte for byte, so the audio decodes
/// to exactly the samples it did. libogg (``OggPageReader``, ``OggLogicalStream``) does the framing: pages, sequence
/// numbers, CRCs. This one reader and writer serves import and export without a second encoding, retitling, output
/// gain (`export --normalize`) and trimming.
///
/// The pages written are of the same serial number, numbered from 0: the identification header (`OpusHead`) on one,
/// the comment header (`OpusTags`) on the next (or more, for a long one), then one written for each page of audio read,
/// each packet with its granule position. The identification header stays byte for byte but for the pre-skip and
/// output gain an edit gives it; the comment header keeps its vendor string and its comments but for the title and
/// date, which take the new ones. A stream cut short (a torn last page, no end-of-stream page: a killed recording) is
/// copied up to its last whole packet and ended there, as ``OpusStreamRepair`` ends it in place.
///
/// A trim (RFC 7845 §4.3, §4.5) keeps whole packets: the one holding the first sample kept and some before it, whose
/// decoding the pre-skip drops, so that the decoder has settled by the cut. A decoder started mid-stream settles on the
/// whole stream's samples only after a while (a few hundred milliseconds of speech, seen up to 1.6 s), and the
/// pre-skip reaches back 1.36 s at most: the copy decodes the stream (libopus, at 48 kHz) up to a second past the cut,
/// then tries each packet within the pre-skip's reach, nearest the cut first (80 ms before it at least), as the first
/// one kept, and keeps the first from which the decoder gives exactly the whole stream's samples from the cut on. When none does (rare), it
/// keeps the one farthest back: the first moments after the cut then decode within about −50 dB of the original rather
/// than exactly. At the end it keeps the packet holding the last sample kept, whose granule position (less than the
/// packet's end) drops the rest: what comes before the end decodes exactly.
struct OpusStreamCopy {
    /// What a copy changes; everything else is copied as it is.
    struct Edit: Equatable {
        /// Tags and markers for the comment header (markers in frames of the rate the stream decodes at); `nil` keeps
        /// the comments as they are.
        var metadata: AudioMetadata?
        /// Decibels added to the identification header's output gain.
        var gain = 0.0
        /// The samples to keep, at 48 kHz, counted from the first one the stream decodes to (after its pre-skip);
        /// `nil` keeps them all.
        var samples: Range<Int64>?
    }

    /// Why a stream cannot be copied this way; it can still be decoded and encoded again.
    struct NotCopyable: Error, CustomStringConvertible {
        let description: String
    }

    let source: FileDescriptor
    let destination: FileDescriptor

    /// Copies the stream with `edit`'s changes. Returns the bytes written.
    ///
    /// - Throws: ``NotCopyable`` when the source is not one whole Ogg Opus stream (chained, interleaved, damaged
    ///   before its end, headers missing), or holds no audio in `edit`'s range; `Errno` when a file cannot be read or
    ///   written; ``OggStreamError``.
    func copy(_ edit: Edit) throws -> Int64 {
        let reader = OggPageReader(descriptor: source)
        var input: OggLogicalStream?
        var output: OggLogicalStream?
        var headers: [OggPacket] = []
        var cut: Cut?
        var pending: [OggPacket] = []
        var written: Int64 = 0
        var damageSeen = false
        var timeline = OpusPacketTimeline()
        /// The rate the markers' frames count in.
        var sampleRate = 48000.0

        func write(_ pages: [OggPage]) throws {
            for page in pages {
                written += Int64(try destination.writeAll(toAbsoluteOffset: written, page.bytes))
            }
        }
        /// Writes the two headers, each on a page of its own: audio begins on a fresh page (RFC 7845 §3).
        func writeHeaders(_ output: OggLogicalStream) throws {
            for header in headers {
                try output.add(header)
                try write(output.flush())
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
                        guard headers.count == 2 else {
                            if headers.isEmpty {
                                guard var head = OpusHead(packet: packet.data) else { throw NotCopyable(description: "it is not Opus") }
                                sampleRate = head.decodingRate
                                head.outputGain += edit.gain
                                packet.data = head.packet
                                if let samples = edit.samples {
                                    let start = samples.lowerBound + Int64(head.preSkip)
                                    cut = Cut(
                                        keeping: samples, preSkip: head.preSkip,
                                        firstPacketStart: try settledStart(cuttingAt: start, until: samples.upperBound + Int64(head.preSkip), head: head))
                                }
                            } else {
                                guard var tags = OpusTags(packet: packet.data) else {
                                    throw NotCopyable(description: "its comment header is damaged")
                                }
                                if let metadata = edit.metadata { tags.replace(with: metadata, sampleRate: sampleRate) }
                                packet.data = tags.packet
                            }
                            headers.append(packet)
                            // Untrimmed, the headers go out at once; trimmed, once the first packet kept tells the pre-skip.
                            if headers.count == 2, cut == nil { try writeHeaders(output) }
                            continue
                        }
                        audio.append(packet)
                    }
                    var placed: [OpusPacketTimeline.Placed] = []
                    if !audio.isEmpty {
                        guard let onPage = timeline.place(audio) else {
                            throw NotCopyable(description: "the positions of its packets cannot be told")
                        }
                        placed = onPage
                        audio = onPage.map(\.packet)
                    }
                    var reachedEnd = false
                    if var trim = cut {
                        let wasStarted = trim.shift != nil
                        (audio, reachedEnd) = trim.apply(to: placed)
                        cut = trim
                        if !wasStarted, let preSkip = trim.preSkip {
                            guard var head = OpusHead(packet: headers[0].data) else { throw NotCopyable(description: "it is not Opus") }
                            head.preSkip = preSkip
                            headers[0].data = head.packet
                            try writeHeaders(output)
                        }
                    }
                    if !audio.isEmpty {
                        // Held back a page: the last packet of all is written ending the stream.
                        if !pending.isEmpty {
                            for packet in pending { try output.add(packet) }
                            try write(output.flush())
                        }
                        pending = audio
                    }
                    if reachedEnd { break reading }
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
        guard let output, headers.count == 2, !pending.isEmpty else { throw NotCopyable(description: "it holds no audio") }
        pending[pending.count - 1].isEndOfStream = true
        for packet in pending { try output.add(packet) }
        try write(output.flush())
        return written
    }

    /// The granule position (the source's) at which the first packet a trim starting at granule position `cut` keeps
    /// starts: the packet nearest the cut, 80 ms before it at least (RFC 7845's pre-roll) and within the pre-skip's
    /// reach, from which a decoder gives exactly the samples the whole stream gives from `cut` up to a second on (or
    /// `end`), or failing that the one farthest back (the stream's first packet, when the pre-skip reaches back to it,
    /// which decodes exactly). The nearest keeps the pre-skip small: players and ffprobe that count it into the length
    /// are off by little.
    ///
    /// - Throws: ``NotCopyable`` when a packet's position cannot be told, a packet does not decode, or libopus cannot
    ///   decode the stream.
    private func settledStart(cuttingAt cut: Int64, until end: Int64, head: OpusHead) throws -> Int64 {
        let earliest = cut - Int64(OpusHead.maximumPreSkip)
        let compared = cut..<min(end, cut + 48000)
        let channels = head.channelCount
        let reference: OpusPacketDecoder
        do {
            reference = try OpusPacketDecoder(head: head)
        } catch {
            throw NotCopyable(description: "its stream cannot be decoded (\(error))")
        }
        /// The packets within reach of the pre-skip up to the end of the comparison, with their starts.
        var window: [(start: Int64, data: [UInt8])] = []
        /// What the whole stream decodes to over `compared`.
        var expected: [Float] = []
        /// Adds to `samples` what of `frames`, decoded from a packet starting at `start`, lies in `compared`.
        func appendCompared(_ frames: [Float], from start: Int64, to samples: inout [Float]) {
            let from = max(start, compared.lowerBound), to = min(start + Int64(frames.count / channels), compared.upperBound)
            guard from < to else { return }
            samples += frames[(Int(from - start) * channels)..<(Int(to - start) * channels)]
        }
        let reader = OggPageReader(descriptor: source)
        var opened: OggLogicalStream?
        var timeline = OpusPacketTimeline()
        var headers = 2
        reading: while case .page(let page) = try reader.next() {
            let stream = try opened ?? OggLogicalStream(serialNumber: page.serialNumber)
            opened = stream
            // What the copy refuses (a second stream) ends the search; the copy then says why.
            guard page.serialNumber == stream.serialNumber, !page.isBeginningOfStream || page.offset == 0 else { break }
            try stream.add(page)
            var packets: [OggPacket] = []
            while let packet = try stream.nextPacket() { packets.append(packet) }
            let audio = Array(packets.dropFirst(min(headers, packets.count)))
            headers -= min(headers, packets.count)
            guard !audio.isEmpty else { continue }
            guard let placed = timeline.place(audio) else {
                throw NotCopyable(description: "the positions of its packets cannot be told")
            }
            for packet in placed {
                guard packet.start < compared.upperBound else { break reading }
                guard let frames = reference.decode(packet.packet.data) else {
                    throw NotCopyable(description: "a packet of it does not decode")
                }
                appendCompared(frames, from: packet.start, to: &expected)
                if packet.start >= earliest { window.append((packet.start, packet.packet.data)) }
            }
        }
        // Nearest first: the fewest packets before the cut, and the smallest pre-skip, that decode exactly.
        for first in window.indices.reversed() where window[first].start <= cut - 3840 {
            guard let decoder = try? OpusPacketDecoder(head: head) else { break }
            var decoded: [Float] = []
            for (start, data) in window[first...] {
                guard let frames = decoder.decode(data) else { break }
                appendCompared(frames, from: start, to: &decoded)
                if decoded != Array(expected.prefix(decoded.count)) { break }
            }
            if decoded == expected { return window[first].start }
        }
        return window.first?.start ?? cut
    }

    /// Which packets a trim keeps, and their positions in the trimmed stream, decided packet by packet as they come.
    private struct Cut {
        /// The first and the end granule position kept, in the source's terms (its pre-skip included).
        let start: Int64
        let end: Int64
        /// Where the first packet kept starts (the source's granule position).
        let firstPacketStart: Int64
        /// The granule position of the first packet kept's start, once one is: what every position kept moves by.
        private(set) var shift: Int64?

        init(keeping samples: Range<Int64>, preSkip: Int, firstPacketStart: Int64) {
            start = samples.lowerBound + Int64(preSkip)
            end = samples.upperBound + Int64(preSkip)
            self.firstPacketStart = firstPacketStart
        }

        /// The trimmed stream's pre-skip, once the first packet kept is known: from its start to the first sample kept.
        var preSkip: Int? { shift.map { Int(start - $0) } }

        /// The packets of `packets` the trim keeps, positioned in the trimmed stream, and whether the last sample kept
        /// is among them (the stream ends there).
        mutating func apply(to packets: [OpusPacketTimeline.Placed]) -> (kept: [OggPacket], reachedEnd: Bool) {
            var kept: [OggPacket] = []
            for placed in packets {
                var packet = placed.packet
                let packetStart = placed.start
                // Before the packet the decoder starts from: not needed to decode what is kept.
                if shift == nil, packetStart < firstPacketStart { continue }
                if packetStart >= end { return (kept, true) }
                if shift == nil { shift = packetStart }
                let reachesEnd = packet.granulePosition >= end
                packet.granulePosition = min(packet.granulePosition, end) - shift!
                kept.append(packet)
                if reachesEnd { return (kept, true) }
            }
            return (kept, false)
        }
    }
}
