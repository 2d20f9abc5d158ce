import CFFmpeg

/// FFmpeg's own AAC encoder (`aac`, MPEG-4 AAC-LC, no non-free library): interleaved 32-bit float frames in, AAC
/// packets out, stamped in frames from the start, the encoder's priming (``priming`` frames of silence it puts first)
/// included: the first packet's timestamp is `-priming`, as an MP4 edit list wants it.
///
/// The only owner of the codec context, its frame and its packet. Packets reach the caller through a closure, valid
/// during the call only; the caller is ``FFmpegOutput``, in this folder.
///
/// **Not thread-safe**: one thread (the recording's writer) at a time.
final class FFmpegAACEncoder {
    /// Frames per AAC packet: 1024.
    let frameSize: Int
    /// Interleaved channels of the input.
    let channelCount: Int
    /// Frames per second.
    let sampleRate: Int
    /// Frames of silence the encoder puts before the first input frame (1024 for FFmpeg's encoder).
    let priming: Int

    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame = av_frame_alloc()
    private var packet = av_packet_alloc()
    /// Frames put into ``frame`` so far, waiting for it to fill up.
    private var pending = 0
    /// Frames handed to the encoder so far: the timestamp of the next one.
    private var sent: Int64 = 0

    /// Opens the encoder.
    ///
    /// The corresponding C functions are `avcodec_find_encoder_by_name`, `avcodec_alloc_context3`,
    /// `av_channel_layout_default`, `avcodec_open2` and `av_frame_get_buffer`.
    ///
    /// - Parameters:
    ///   - sampleRate: Frames per second: one of AAC's rates (8000 … 96000).
    ///   - channelCount: 1 or 2.
    ///   - bitRate: The target, in bits per second for all channels (average bit rate).
    ///   - globalHeader: Whether the container keeps the codec's setup apart from the packets (MP4 does).
    ///
    /// - Precondition: ``FFmpegLibrary/load()`` succeeded.
    init(sampleRate: Int, channelCount: Int, bitRate: Int, globalHeader: Bool) throws(FFmpegError) {
        assert(FFmpegLibrary.isLoaded, "FFmpegLibrary.load() comes first")
        guard let encoder = avcodec_find_encoder_by_name("aac") else { throw FFmpegError(code: cffmpeg_error_encoder_not_found()) }
        guard let codec = avcodec_alloc_context3(encoder), let frame, packet != nil else {
            throw FFmpegError(code: cffmpeg_error_no_memory())
        }
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        codec.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        codec.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&codec.pointee.ch_layout, Int32(channelCount))
        codec.pointee.bit_rate = Int64(bitRate)
        codec.pointee.profile = FF_PROFILE_AAC_LOW
        codec.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if globalHeader { codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try FFmpegError.check(avcodec_open2(codec, encoder, nil))
        frameSize = Int(codec.pointee.frame_size)
        priming = Int(codec.pointee.initial_padding)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.sample_rate = Int32(sampleRate)
        try FFmpegError.check(av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout))
        try FFmpegError.check(av_frame_get_buffer(frame, 0))
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&codec)
    }

    /// Describes the encoded stream in `stream`'s codec parameters, for a muxer.
    ///
    /// The corresponding C function is `avcodec_parameters_from_context`.
    func describe(_ stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
        try FFmpegError.check(avcodec_parameters_from_context(stream.pointee.codecpar, codec))
        stream.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
    }

    /// Encodes interleaved `samples` (a multiple of ``channelCount``), handing every packet that comes out to `emit`.
    ///
    /// The corresponding C functions are `av_frame_make_writable`, `avcodec_send_frame` and `avcodec_receive_frame`.
    func encode(_ samples: UnsafeBufferPointer<Float>, _ emit: (UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Void) throws(FFmpegError) {
        guard let frame else { return }
        let frames = samples.count / channelCount
        var done = 0
        while done < frames {
            if pending == 0 { try FFmpegError.check(av_frame_make_writable(frame)) }
            let count = min(frameSize - pending, frames - done)
            for channel in 0..<channelCount {
                let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!).assumingMemoryBound(to: Float.self)
                for index in 0..<count { plane[pending + index] = samples[(done + index) * channelCount + channel] }
            }
            pending += count
            done += count
            if pending == frameSize { try send(emit) }
        }
    }

    /// Encodes what is left (a last, shorter frame) and drains the encoder: every packet goes to `emit`. Nothing may be
    /// encoded after.
    func finish(_ emit: (UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Void) throws(FFmpegError) {
        if pending > 0 { try send(emit) }
        try FFmpegError.check(avcodec_send_frame(codec, nil))
        try receive(emit)
    }

    /// Sends ``frame`` with its ``pending`` frames and takes what packets are ready.
    private func send(_ emit: (UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Void) throws(FFmpegError) {
        guard let frame else { return }
        frame.pointee.nb_samples = Int32(pending)
        frame.pointee.pts = sent
        sent += Int64(pending)
        pending = 0
        try FFmpegError.check(avcodec_send_frame(codec, frame))
        try receive(emit)
    }

    private func receive(_ emit: (UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Void) throws(FFmpegError) {
        guard let packet else { return }
        while true {
            let received = avcodec_receive_packet(codec, packet)
            if received == cffmpeg_error_again() || received == cffmpeg_error_eof() { return }
            try FFmpegError.check(received)
            defer { av_packet_unref(packet) }
            try emit(packet)
        }
    }
}
