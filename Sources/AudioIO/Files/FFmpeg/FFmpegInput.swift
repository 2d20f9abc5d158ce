import CFFmpeg

/// One pass over a file through libavformat and libavcodec: the best audio stream's packets, decoded in order into
/// frames of samples. The only owner of FFmpeg's contexts and the only code that reads their fields; ``FFmpegDecoder``
/// takes its frames as Swift values and starts a new pass to go back.
///
/// **Not thread-safe**: one thread at a time.
final class FFmpegInput {
    /// The containers FFmpeg is asked to read: what phones and recorders write and libsndfile does not (MP4, M4A,
    /// MOV and 3GP; ADTS AAC; ASF, which holds WMA; AMR). FFmpeg knows hundreds of formats, most of them not audio
    /// files a person imports; what is not here is never handed to their parsers.
    static let containers: Set<Substring> = ["mov", "mp4", "m4a", "3gp", "3g2", "mj2", "aac", "asf", "amr", "amrnb", "amrwb"]

    /// Why a file could not be opened.
    enum OpenFailure: Error {
        /// The bytes are in none of ``containers``.
        case unrecognized
        /// The container holds no audio stream.
        case noAudio
        /// The audio's codec, named in the payload, has no decoder in this FFmpeg.
        case noDecoder(String)
        /// The container or codec is recognised but does not open: damaged, or not as its format says.
        case failed(FFmpegError)
    }

    /// A decoded frame's samples, as FFmpeg holds them until the next call of ``nextFrame()``.
    struct Samples {
        /// Frames (samples per channel).
        let count: Int
        /// Channels in the frame.
        let channelCount: Int
        /// Frames per second.
        let sampleRate: Int
        /// The sample type, e.g. 32-bit float.
        let format: SampleFormat
        /// Whether each channel has its own plane (`planes[c]`), rather than all interleaved in `planes[0]`.
        let isPlanar: Bool
        /// The planes: one per channel when planar, else one.
        let planes: [UnsafeRawPointer]
        /// When the first frame sounds, in the stream's time base (frames, where ``seeksByTimestamp``), if known.
        let timestamp: Int64?
    }

    /// The sample types FFmpeg's decoders give.
    enum SampleFormat { case uint8, int16, int32, int64, float32, float64 }

    private var io: UnsafeMutablePointer<AVIOContext>?
    private(set) var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private(set) var packet = av_packet_alloc()
    private var frame = av_frame_alloc()
    private(set) var stream: UnsafeMutablePointer<AVStream>?
    private var draining = false

    /// Where the bytes come from.
    enum Origin {
        /// A regular file.
        case file(path: String)
        /// Bytes read through callbacks (an `http` address's), named `name`.
        case bytes(any RandomAccessBytes, name: String)
        /// A live stream's bytes, read once from front to back (no seeking, no length), named `name`.
        case stream(LiveStream, name: String)
    }

    /// The containers a live stream is read in: what Icecast and SHOUTcast stations send (MP3, ADTS AAC, Ogg).
    static let streamContainers: Set<Substring> = ["mp3", "aac", "ogg"]

    /// The byte offset of the last packet handed to the decoder, in the bytes read (-1 before the first): where in a
    /// live stream the audio being decoded came.
    private(set) var lastPacketPosition: Int64 = -1

    /// The reading position of ``Origin/bytes(_:name:)``, kept alive for the I/O context's callbacks.
    private var bytePosition: BytePosition?
    /// The stream of ``Origin/stream(_:name:)``, kept alive for the I/O context's callback.
    private var liveStream: LiveStream?
    /// What a playlist of ``Origin/bytes(_:name:)`` opens, for an address's.
    private var nested: NestedAddresses?

    /// Why an address a playlist names (a segment) could not be had: the demuxer skips it, the reader must not.
    var nestedFailure: DownloadError? { nested?.failure }

    /// The windows of the HLS playlists read since the last call (the one opened, then each time a live one is read
    /// again), oldest first.
    func takePlaylistWindows() -> [PlaylistWindow] {
        defer { nested?.windowsRead.removeAll() }
        return nested?.windowsRead ?? []
    }

    /// Opens `origin` and the decoder of its best audio stream.
    ///
    /// - Parameters:
    ///   - containers: The containers to open: ``containers`` unless told otherwise (FLAC, Ogg and MP3, whose chapters
    ///     libsndfile does not read).
    ///   - liveSegment: For a live HLS playlist, the segment of its window to start at (the demuxer's
    ///     `live_start_index`), rather than three before the end.
    ///
    /// The corresponding C functions are `avio_open` (a file) or `avio_alloc_context` (bytes),
    /// `av_probe_input_buffer2`, `avformat_open_input`, `avformat_find_stream_info`, `av_find_best_stream` and
    /// `avcodec_open2`.
    ///
    /// - Precondition: ``FFmpegLibrary/load()`` succeeded.
    init(_ origin: Origin, containers: Set<Substring> = FFmpegInput.containers, liveSegment: Int? = nil) throws(OpenFailure) {
        assert(FFmpegLibrary.isLoaded, "FFmpegLibrary.load() comes first")
        let path: String
        switch origin {
        case .file(let file):
            path = file
            // "file:" so that a name with a colon is never taken for another protocol.
            let opened = avio_open(&io, "file:" + path, AVIO_FLAG_READ)
            guard opened >= 0 else { throw .failed(FFmpegError(code: opened)) }
        case .bytes(let bytes, let name):
            path = name
            let position = BytePosition(bytes)
            bytePosition = position
            io = Self.context(reading: position)
            guard io != nil else { throw .failed(FFmpegError(code: cffmpeg_error_io())) }
            // An address's playlist (HLS) opens its segments as addresses of its own, with the same headers and cache.
            if let reader = bytes as? RemoteReader { nested = NestedAddresses(of: reader.asset) }
        case .stream(let stream, let name):
            path = name
            liveStream = stream
            let size = 1 << 14
            guard let buffer = av_malloc(size) else { throw .failed(FFmpegError(code: cffmpeg_error_io())) }
            // No seek callback: FFmpeg reads it as a stream, and never looks for its end.
            io = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, Unmanaged.passUnretained(stream).toOpaque(),
                { context, buffer, size in
                    let stream = Unmanaged<LiveStream>.fromOpaque(context!).takeUnretainedValue()
                    let count = stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
                    return count > 0 ? Int32(count) : cffmpeg_error_eof()
                },
                nil, nil)
            guard io != nil else {
                av_free(buffer)
                throw .failed(FFmpegError(code: cffmpeg_error_io()))
            }
        }
        var container: UnsafePointer<AVInputFormat>?
        // By content only: given the name, FFmpeg takes any bytes named .m4a for an MP4.
        let probed = av_probe_input_buffer2(io, &container, nil, nil, 0, 0) >= 0
        if nested != nil, let position = bytePosition, Self.isPlaylist(position.bytes) {
            // FFmpeg's HLS demuxer knows a playlist by its name only; this one is known by its first line.
            container = av_find_input_format("hls")
            if let window = PlaylistWindow(bytes: position.bytes) { nested?.windowsRead.append(window) }
        } else {
            guard probed, let container,
                  String(cString: container.pointee.name).split(separator: ",").contains(where: containers.contains)
            else { throw .unrecognized }
        }
        format = avformat_alloc_context()
        format?.pointee.pb = io
        var options: OpaquePointer?
        if let nested, let format {
            nested.serve(format)
            // The segments' I/O is ours, not FFmpeg's HTTP: the demuxer must not reuse it as an HTTP connection.
            av_dict_set(&options, "http_persistent", "0", 0)
            av_dict_set(&options, "http_multiple", "0", 0)
            if let liveSegment { av_dict_set(&options, "live_start_index", String(liveSegment), 0) }
            // A live playlist that has no new segment yet is read again every half target duration: by default the
            // demuxer ends the stream after 3 such reads, which a server late by 2 s (of 1-s segments) would do.
            av_dict_set(&options, "max_reload", "20", 0)
        }
        defer { av_dict_free(&options) }
        var code = avformat_open_input(&format, path, container, &options)
        guard code >= 0 else { throw .failed(FFmpegError(code: code)) }
        code = avformat_find_stream_info(format, nil)
        guard code >= 0, let format else { throw .failed(FFmpegError(code: code)) }
        let streams = (0..<Int(format.pointee.nb_streams)).map { format.pointee.streams[$0]! }
        var decoder: UnsafePointer<AVCodec>?
        let found = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        if found == cffmpeg_error_decoder_not_found() {
            let audio = streams.first { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
            throw .noDecoder(audio.map { String(cString: avcodec_get_name($0.pointee.codecpar.pointee.codec_id)) } ?? "unknown")
        }
        guard found >= 0, let decoder else { throw .noAudio }
        let stream = streams[Int(found)]
        self.stream = stream
        // The demuxer then skips the packets of every other stream (a video track) rather than handing them over.
        for other in streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        codec = avcodec_alloc_context3(decoder)
        code = avcodec_parameters_to_context(codec, stream.pointee.codecpar)
        if code >= 0, let codec {
            codec.pointee.pkt_timebase = stream.pointee.time_base
            code = avcodec_open2(codec, decoder, nil)
        }
        guard code >= 0 else { throw .failed(FFmpegError(code: code)) }
    }

    deinit {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        // Closes the container, not the I/O context given to it.
        avformat_close_input(&format)
        if bytePosition != nil || liveStream != nil {
            av_freep(&io!.pointee.buffer)
            avio_context_free(&io)
        } else {
            avio_closep(&io)
        }
    }

    private static func position(_ context: UnsafeMutableRawPointer?) -> BytePosition {
        Unmanaged<BytePosition>.fromOpaque(context!).takeUnretainedValue()
    }

    /// An I/O context reading `position`'s bytes (which it does not keep alive); nil when FFmpeg is out of memory.
    ///
    /// The corresponding C function is `avio_alloc_context`.
    static func context(reading position: BytePosition) -> UnsafeMutablePointer<AVIOContext>? {
        let size = 1 << 16
        guard let buffer = av_malloc(size) else { return nil }
        let context = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0, Unmanaged.passUnretained(position).toOpaque(),
            { context, buffer, size in
                let count = FFmpegInput.position(context).readAvailable(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
                // libsndfile's end and a failed download look alike here; AudioFile tells them apart.
                return count > 0 ? Int32(count) : cffmpeg_error_eof()
            },
            nil,
            { context, offset, whence in
                let position = FFmpegInput.position(context)
                if whence & cffmpeg_seek_size() != 0 { return position.bytes.byteCount }
                return position.seek(offset, from: whence & ~AVSEEK_FORCE)
            })
        if context == nil { av_free(buffer) }
        return context
    }

    /// Whether `bytes` begin as an HLS playlist does: `#EXTM3U`.
    private static func isPlaylist(_ bytes: any RandomAccessBytes) -> Bool {
        var head = [UInt8](repeating: 0, count: 7)
        let count = head.withUnsafeMutableBytes { BytePosition(bytes).read(into: $0) }
        return count == 7 && head == Array("#EXTM3U".utf8)
    }

    /// The next decoded frame, or `nil` at the end of the stream. Its samples are valid until the next call.
    ///
    /// The corresponding C functions are `av_read_frame`, `avcodec_send_packet` and `avcodec_receive_frame`.
    func nextFrame() throws(FFmpegError) -> Samples? {
        guard let codec, let frame, let packet, let stream else { return nil }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 { return samples(of: frame) }
            let error = FFmpegError(code: received)
            if error.isEnd { return nil }
            guard error.isAgain, !draining else { throw error }
            let read = av_read_frame(format, packet)
            if FFmpegError(code: read).isEnd || read >= 0 && packet.pointee.stream_index != stream.pointee.index {
                av_packet_unref(packet)
                if read < 0 {
                    // No more packets: the decoder gives what it holds, then the end.
                    draining = true
                    try FFmpegError.check(avcodec_send_packet(codec, nil))
                }
                continue
            }
            try FFmpegError.check(read)
            defer { av_packet_unref(packet) }
            if packet.pointee.pos >= 0 { lastPacketPosition = packet.pointee.pos }
            let sent = avcodec_send_packet(codec, packet)
            // A live stream connected again goes on mid-frame: the decoder finds the next frame, as a radio does.
            if liveStream != nil, FFmpegError(code: sent).isInvalidData { continue }
            try FFmpegError.check(sent)
        }
    }

    private func samples(of frame: UnsafeMutablePointer<AVFrame>) -> Samples {
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        let format = AVSampleFormat(frame.pointee.format)
        let isPlanar = av_sample_fmt_is_planar(format) != 0
        let planes = (0..<(isPlanar ? channels : 1)).map { UnsafeRawPointer(frame.pointee.extended_data[$0]!) }
        let sampleFormat: SampleFormat = switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_U8: .uint8
        case AV_SAMPLE_FMT_S16: .int16
        case AV_SAMPLE_FMT_S32: .int32
        case AV_SAMPLE_FMT_S64: .int64
        case AV_SAMPLE_FMT_DBL: .float64
        default: .float32
        }
        let timestamp = frame.pointee.best_effort_timestamp
        return Samples(
            count: Int(frame.pointee.nb_samples), channelCount: channels, sampleRate: Int(frame.pointee.sample_rate),
            format: sampleFormat, isPlanar: isPlanar, planes: planes, timestamp: timestamp == cffmpeg_no_timestamp() ? nil : timestamp)
    }

    /// Moves to the last packet that starts at or before `timestamp` (in the stream's time base); the decoder starts
    /// afresh there, so the first frames it gives lack what came before (an AAC frame overlaps the one before it).
    ///
    /// The corresponding C functions are `av_seek_frame` and `avcodec_flush_buffers`.
    func seek(toTimestamp timestamp: Int64) throws(FFmpegError) {
        guard let stream, let codec else { return }
        try FFmpegError.check(av_seek_frame(format, stream.pointee.index, timestamp, AVSEEK_FLAG_BACKWARD))
        avcodec_flush_buffers(codec)
        draining = false
    }

    // MARK: What the container and the codec say

    /// Frames per second of the audio stream, as the codec parameters give it.
    var sampleRate: Int { Int(stream?.pointee.codecpar.pointee.sample_rate ?? 0) }

    /// Channels of the audio stream.
    var channelCount: Int { Int(stream?.pointee.codecpar.pointee.ch_layout.nb_channels ?? 0) }

    /// FFmpeg's short name of the codec, e.g. "aac", "alac", "wmav2", "amr_nb".
    var codecName: String { String(cString: avcodec_get_name(stream?.pointee.codecpar.pointee.codec_id ?? AV_CODEC_ID_NONE)) }

    /// The container's and the codec's long names, e.g. "QuickTime / MOV, AAC (Advanced Audio Coding)".
    var formatName: String {
        // Long names may be left out of a small FFmpeg build: then the short ones.
        let input = format?.pointee.iformat.pointee
        let container = (input?.long_name ?? input?.name).map { String(cString: $0) } ?? "unknown"
        guard let descriptor = avcodec_descriptor_get(stream?.pointee.codecpar.pointee.codec_id ?? AV_CODEC_ID_NONE)?.pointee,
              let codec = descriptor.long_name ?? descriptor.name
        else { return container }
        return container + ", " + String(cString: codec)
    }

    /// Bits per sample of a lossless codec (ALAC, PCM): 16, 24 or 32; `nil` for a lossy one.
    var losslessBitDepth: Int? {
        guard let parameters = stream?.pointee.codecpar.pointee,
              let descriptor = avcodec_descriptor_get(parameters.codec_id),
              descriptor.pointee.props & AV_CODEC_PROP_LOSSLESS != 0, parameters.bits_per_raw_sample > 0
        else { return nil }
        return Int(parameters.bits_per_raw_sample)
    }

    /// The stream's length in frames when the container states it exactly: an MP4 or MOV (its edit list applied),
    /// with its time base one frame. `nil` where it is only an estimate (ADTS, ASF, AMR).
    var statedFrameCount: Int64? {
        guard let stream, let format,
              String(cString: format.pointee.iformat.pointee.name).split(separator: ",").contains("mov"),
              stream.pointee.time_base.num == 1, Int(stream.pointee.time_base.den) == sampleRate,
              stream.pointee.duration != cffmpeg_no_timestamp(), stream.pointee.duration > 0
        else { return nil }
        return stream.pointee.duration
    }

    /// Whether it is a live HLS playlist: one without an end (`#EXT-X-ENDLIST`), whose demuxer knows no duration.
    var isLivePlaylist: Bool {
        guard let format, String(cString: format.pointee.iformat.pointee.name) == "hls" else { return false }
        return format.pointee.duration == cffmpeg_no_timestamp() || format.pointee.duration <= 0
    }

    /// The stream's length in frames as the container estimates it, as ffprobe says it: ADTS's and AMR's from the bit
    /// rate and the file's size, ASF's from its header. `nil` when it gives none.
    var estimatedFrameCount: Int64? {
        guard let format, format.pointee.duration != cffmpeg_no_timestamp(), format.pointee.duration > 0 else { return nil }
        return Int64((Double(format.pointee.duration) * Double(sampleRate) / Double(AV_TIME_BASE)).rounded())
    }

    /// The versions of libavformat and libavcodec running, e.g. `["libavformat 59.27.100", "libavcodec 59.37.100"]`,
    /// or why FFmpeg could not be loaded.
    ///
    /// The corresponding C functions are `avformat_version` and `avcodec_version`.
    static var versions: [String] {
        do { try FFmpegLibrary.load() } catch { return [error.message] }
        return [("libavformat", avformat_version()), ("libavcodec", avcodec_version())].map { name, version in
            "\(name) \(version >> 16).\(version >> 8 & 0xFF).\(version & 0xFF)"
        }
    }

    /// Whether the container's index gives every packet's time in frames (MP4, MOV), so that ``seek(toTimestamp:)``
    /// and the frames' timestamps say exactly where decoding is.
    var seeksByTimestamp: Bool { statedFrameCount != nil }

    /// The tag `key` (e.g. "title", "creation_time", "date") of the file, else of the audio stream.
    ///
    /// The corresponding C function is `av_dict_get`.
    func tag(_ key: String) -> String? {
        for dictionary in [format?.pointee.metadata, stream?.pointee.metadata] {
            if let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value {
                return String(cString: value)
            }
        }
        return nil
    }
}
