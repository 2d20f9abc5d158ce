import CFFmpeg

/// A file written through libavformat: one audio stream, described by an encoder or copied from another file, its
/// packets, the file's tags and chapters. The only owner of the output's contexts.
///
/// **Not thread-safe**: one thread at a time.
final class FFmpegOutput {
    /// How the file is laid out.
    enum Layout {
        /// The index (an MP4's `moov`) written when the file is finished: what players expect.
        case whole
        /// Fragmented MP4: an index without samples first, then fragments (`moof` + `mdat`) each whole in itself, cut
        /// by ``flushFragment()``: a file cut short is readable up to its last whole fragment.
        case fragmented
    }

    /// A chapter: its start and end in frames, and its title, if any.
    struct Chapter {
        var start: Int64
        var end: Int64
        var title: String?
    }

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    /// What the caller stamps its packets in: frames, or an input stream's time base.
    private let timeBase: AVRational
    private let path: String
    private var isFinished = false

    /// Creates the file at `path` (an existing one is replaced; its mode is kept) and writes its header.
    ///
    /// The corresponding C functions are `avformat_alloc_output_context2`, `avformat_new_stream`, `av_dict_set`,
    /// `avio_open` and `avformat_write_header`.
    ///
    /// - Parameters:
    ///   - path: The file to write.
    ///   - container: libavformat's name of the muxer, e.g. "ipod" (M4A).
    ///   - tags: The file's tags, in libavformat's names ("title", "artist", "date", "creation_time", ...).
    ///   - chapters: The file's chapters, in frames of `sampleRate`.
    ///   - sampleRate: Frames per second of the audio.
    ///   - timeBase: The unit of the timestamps of the packets given to ``write(_:)``.
    ///   - layout: Whole or fragmented.
    ///   - describe: Fills in the stream's codec parameters (an encoder's, or a copied stream's).
    init(
        path: String, container: String, tags: [(String, String)], chapters: [Chapter], sampleRate: Int, timeBase: AVRational,
        layout: Layout, describe: (UnsafeMutablePointer<AVStream>) throws(FFmpegError) -> Void
    ) throws(FFmpegError) {
        assert(FFmpegLibrary.isLoaded, "FFmpegLibrary.load() comes first")
        self.path = path
        self.timeBase = timeBase
        try FFmpegError.check(avformat_alloc_output_context2(&format, nil, container, nil))
        guard let format, let stream = avformat_new_stream(format, nil) else { throw FFmpegError(code: cffmpeg_error_no_memory()) }
        self.stream = stream
        do {
            try describe(stream)
            for (key, value) in tags { try FFmpegError.check(av_dict_set(&format.pointee.metadata, key, value, 0)) }
            for (number, chapter) in chapters.enumerated() { try Self.add(chapter, number: number, sampleRate: sampleRate, to: format) }
            // "file:" so that a name with a colon is never taken for another protocol.
            try FFmpegError.check(avio_open(&format.pointee.pb, "file:" + path, AVIO_FLAG_WRITE))
            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            // The movie's time in frames, not the default milliseconds: its edit list, which says where the audio ends,
            // is then exact to the frame.
            av_dict_set(&options, "movie_timescale", String(sampleRate), 0)
            if layout == .fragmented {
                // Fragments cut by hand (frag_custom); the index written with the first one (delay_moov), when the first
                // packet's timestamp tells the encoder's priming, which it records as an edit list.
                av_dict_set(&options, "movflags", "+frag_custom+empty_moov+delay_moov+default_base_moof", 0)
            }
            try FFmpegError.check(avformat_write_header(format, &options))
        } catch {
            avio_closep(&format.pointee.pb)
            avformat_free_context(format)
            self.format = nil
            throw error
        }
    }

    deinit {
        if let format {
            avio_closep(&format.pointee.pb)
            avformat_free_context(format)
        }
    }

    /// Adds `chapter` to the file's, as libavformat's muxers take them (the context's array of `AVChapter`s, which
    /// `avformat_free_context` frees).
    private static func add(
        _ chapter: Chapter, number: Int, sampleRate: Int, to format: UnsafeMutablePointer<AVFormatContext>
    ) throws(FFmpegError) {
        let count = Int(format.pointee.nb_chapters)
        guard let item = av_mallocz(MemoryLayout<AVChapter>.size)?.assumingMemoryBound(to: AVChapter.self),
              let array = av_realloc_array(format.pointee.chapters, count + 1, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.size)
        else { throw FFmpegError(code: cffmpeg_error_no_memory()) }
        let chapters = array.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        format.pointee.chapters = chapters
        chapters[count] = item
        format.pointee.nb_chapters += 1
        item.pointee.id = Int64(number)
        item.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        item.pointee.start = chapter.start
        item.pointee.end = chapter.end
        // Every chapter titled, if only with nothing: the MP4 muxer puts untitled ones in its chapter track otherwise.
        try FFmpegError.check(av_dict_set(&item.pointee.metadata, "title", chapter.title ?? "", 0))
    }

    /// Writes `packet` (stamped in the time base given at creation); the packet stays the caller's.
    ///
    /// The corresponding C functions are `av_packet_rescale_ts` and `av_write_frame`.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) {
        packet.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(packet, timeBase, stream.pointee.time_base)
        try FFmpegError.check(av_write_frame(format, packet))
        try checkWritten()
    }

    /// Ends the fragment being written (of a ``Layout/fragmented`` file) and hands it to the file system: once this
    /// returns, a process killed keeps it.
    ///
    /// The corresponding C functions are `av_write_frame` with no packet and `avio_flush`.
    func flushFragment() throws(FFmpegError) {
        try FFmpegError.check(av_write_frame(format, nil))
        avio_flush(format?.pointee.pb)
        try checkWritten()
    }

    /// Finishes the file (an MP4's index) and closes it. Calling it again does nothing.
    ///
    /// The corresponding C functions are `av_write_trailer` and `avio_closep`.
    func finish() throws(FFmpegError) {
        guard !isFinished, let format else { return }
        isFinished = true
        try FFmpegError.check(av_write_trailer(format))
        avio_flush(format.pointee.pb)
        try checkWritten()
        try FFmpegError.check(avio_closep(&format.pointee.pb))
    }

    /// A write that failed (disk full, I/O error): libavformat's I/O keeps the error rather than return it.
    private func checkWritten() throws(FFmpegError) {
        if let pb = format?.pointee.pb, pb.pointee.error < 0 { throw FFmpegError(code: pb.pointee.error) }
    }
}
