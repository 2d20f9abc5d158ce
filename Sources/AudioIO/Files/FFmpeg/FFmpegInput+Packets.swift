import CFFmpeg

extension FFmpegInput {
    /// The next packet of the audio stream as the file stores it, undecoded: valid until the next call; `nil` at the
    /// end. A packet cut short by the end of the file (a recording killed mid-write) has `AV_PKT_FLAG_CORRUPT` set.
    /// Not to be mixed with ``nextFrame()`` in one pass.
    ///
    /// The corresponding C function is `av_read_frame`.
    func nextPacket() throws(FFmpegError) -> UnsafeMutablePointer<AVPacket>? {
        guard let format, let packet, let stream else { return nil }
        av_packet_unref(packet)
        while true {
            let read = av_read_frame(format, packet)
            if read == cffmpeg_error_eof() { return nil }
            try FFmpegError.check(read)
            if packet.pointee.stream_index == stream.pointee.index { return packet }
            av_packet_unref(packet)
        }
    }

    /// The unit of the audio stream's timestamps.
    var timeBase: AVRational { stream?.pointee.time_base ?? AVRational(num: 1, den: Int32(max(sampleRate, 1))) }

    /// `timestamp`, in ``timeBase``, in seconds.
    func seconds(ofTimestamp timestamp: Int64) -> Double {
        let base = timeBase
        return Double(timestamp) * Double(base.num) / Double(base.den)
    }

    /// How many frames before a cut the packets kept must reach back for a decoder started there to give, from the cut
    /// on, the samples it gives decoding the whole stream: one packet's for AAC-LC, whose frames overlap only the one
    /// before; a second for the other profiles (HE-AAC's spectral band replication, Main's prediction), as far as
    /// libavformat's MP4 demuxer reaches back before an edit list's start.
    var framesToSettle: Int64 {
        guard let parameters = stream?.pointee.codecpar.pointee else { return 0 }
        guard parameters.profile == FF_PROFILE_AAC_LOW else { return Int64(sampleRate) }
        return Int64(parameters.frame_size > 0 ? parameters.frame_size : 1024)
    }

    /// Describes the audio stream, as stored, in `output`'s codec parameters: for a copy of its packets.
    ///
    /// The corresponding C function is `avcodec_parameters_copy`.
    func describeCopy(in output: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
        guard let stream else { return }
        try FFmpegError.check(avcodec_parameters_copy(output.pointee.codecpar, stream.pointee.codecpar))
        // The muxer picks the tag its container uses for the codec.
        output.pointee.codecpar.pointee.codec_tag = 0
        output.pointee.time_base = stream.pointee.time_base
    }

    /// The file's chapters, in order: their starts in seconds and their titles.
    var chapters: [(start: Double, title: String?)] {
        guard let format else { return [] }
        return (0..<Int(format.pointee.nb_chapters)).compactMap { index in
            guard let chapter = format.pointee.chapters[index]?.pointee, chapter.time_base.den > 0 else { return nil }
            let title = av_dict_get(chapter.metadata, "title", nil, 0)?.pointee.value.map { String(cString: $0) }
            return (Double(chapter.start) * Double(chapter.time_base.num) / Double(chapter.time_base.den), title)
        }
    }

    /// The file's title, date (its creation time, else its `date` tag), artist, album, comment, and its chapters as
    /// markers (see ``M4ACopy/markers(fromChapters:sampleRate:)``).
    var metadata: AudioMetadata {
        var metadata = AudioMetadata()
        for (field, word) in AudioMetadata.textFields { metadata[keyPath: field] = AudioMetadata.text(tag(word)) }
        metadata.creationDate = (tag("creation_time") ?? tag("date")).flatMap(AudioMetadata.date(fromText:))
        metadata.markers = M4ACopy.markers(fromChapters: chapters, sampleRate: Double(sampleRate))
        return metadata
    }
}
