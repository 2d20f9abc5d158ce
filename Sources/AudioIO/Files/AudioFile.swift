import CSndFile
import FoundationEssentials
import SystemPackage

/// An audio file opened for reading: WAV, CAF, Ogg/Opus, FLAC, Ogg/Vorbis, MP3, AIFF and the other
/// containers libsndfile reads, and what phones and other recorders write, through FFmpeg: M4A, MP4 and MOV audio
/// (AAC, ALAC), ADTS AAC, WMA and AMR. Decoded to 32-bit float frames in −1…1, with sample-exact seeking.
///
/// libsndfile reads every file it recognises; FFmpeg (libavformat, libavcodec) only those it does not. For those,
/// ``frameCount`` is exact: what an MP4 or MOV states (the encoder's priming and padding dropped, as its edit list
/// says), else what a first pass decodes, which takes a moment for a long file. An address's ADTS, WMA or AMR file is
/// not decoded ahead, which would wait for its whole download: its ``frameCount`` is FFmpeg's estimate, as ffprobe
/// gives it, until reading reaches the end, where it becomes exact. Seeking in an MP4 or MOV jumps near
/// the frame through the container's index; in the others, seeking back decodes again from the start up to the frame.
///
/// Only regular files are opened: a directory, FIFO or device is refused before anything reads from it,
/// so a misplaced path cannot hang the caller. Header fields outside what any real file has (more than
/// 64 channels, a rate outside ``AudioSettings/sampleRates``) are refused as damage.
///
/// **Not thread-safe**: read it from one thread at a time.
public final class AudioFile {
    /// The highest channel count accepted when reading.
    public static let maximumChannelCount = 64

    /// File name extensions (lowercase, without the dot) of the formats it reads: what a directory's audio files are
    /// called. Opening goes by the contents, never by the name.
    public static let readableFileExtensions: Set<String> = [
        "wav", "wave", "rf64", "w64", "caf", "opus", "flac", "ogg", "oga", "mp3", "aif", "aiff", "aifc", "au", "snd",
        "m4a", "mp4", "mov", "3gp", "3g2", "aac", "wma", "asf", "amr", "awb",
    ]

    /// The file's location.
    public let url: URL
    /// The container and codec.
    public let format: AudioFileFormat
    /// The decoder's name of the container, e.g. "WAV (Microsoft)" (libsndfile) or
    /// "QuickTime / MOV, AAC (Advanced Audio Coding)" (FFmpeg).
    public let formatName: String
    /// Frames per second, in hertz.
    public let sampleRate: Double
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// Frames in the file. For Opus, the exact count of the stream (pre-skip and end trimming applied). For an
    /// address's ADTS, WMA or AMR file, FFmpeg's estimate (from the bit rate, or the ASF header) until a read or seek
    /// reaches the end: it then becomes what decoded, and meanwhile stays ahead of ``framePosition`` while frames
    /// follow, so that reading up to it reads every frame.
    public private(set) var frameCount: Int64
    /// Bits per stored sample for PCM, FLAC and ALAC (8, 16, 24, 32 or 64); `nil` for lossy codecs.
    public let bitDepth: Int?
    /// Size of the file in bytes when it was opened.
    public let byteCount: Int64
    /// Title, creation date, artist, album, comment and markers stored in the file, where it has them (see
    /// ``AudioMetadata`` for where each format keeps them).
    public let metadata: AudioMetadata
    /// The next frame ``read(into:)`` returns, counted from 0.
    public private(set) var framePosition: Int64 = 0
    /// Whether the file is cut short: its header gave no length (a Vorbis file without its last page, a FLAC recording
    /// that never ended), so ``frameCount`` is what decodes, and reading stops there, before the torn end; or it gave
    /// more than the file holds (a WAV, CAF or AIFF file copied or downloaded in part), and ``frameCount`` is what is
    /// there. A FLAC file whose header tells its whole length is found cut short only where decoding stops before that
    /// length: reading ends there, and ``frameCount`` becomes what was read.
    public private(set) var isCutShort = false

    /// Whether the samples are integers that ``read(into:)-(UnsafeMutableBufferPointer<Int32>)`` returns exactly.
    let isIntegerPCM: Bool
    private let decoder: Decoder
    /// What errors call the file: its path, or its address without a password.
    private let name: String
    /// The reader of an `http` or `https` address's bytes.
    let remote: RemoteReader?
    /// The live stream read, for one.
    let live: LiveStream?
    /// Whether it is a live stream (an Icecast or SHOUTcast station's address, or a live HLS playlist): it has no end
    /// yet, so ``frameCount`` is `Int64.max` and ``duration`` infinite (until the stream ends, when they become what was
    /// read); what a station says plays (its `StreamTitle`) comes as it is read (see ``takeTimedMetadata()``). A
    /// station's stream cannot seek. A live playlist's frames count on its time line, as `AVPlayerItem`'s time does:
    /// 0 is the start of the first segment of the window first read, reading starts at its live edge (three segments
    /// before its end), so ``framePosition`` starts past 0; it seeks within its window (the segments it lists now,
    /// ``PlayerItem/seekableTimeRanges`` when played), a frame before it to its start and one past its end to the live
    /// edge; once it ends, its ``frameCount`` is where it ended.
    public var isLive: Bool { frameCount == .max }

    /// A live HLS playlist's window: the span of the segments it listed when last read, in seconds on its time line
    /// (see ``isLive``); nil for anything else.
    var liveWindow: Range<TimeInterval>? { liveTimeline?.window }

    /// A live HLS playlist's time line; nil for anything else.
    var liveTimeline: LiveTimeline? {
        guard case .ffmpeg(let decoder) = decoder else { return nil }
        return decoder.timeline
    }
    /// The live stream's metadata read past and not yet taken: each with the frame where it starts.
    private var timedMetadata: [(frame: Int64, metadata: IcyMetadata)] = []

    /// The library that decodes the file.
    private enum Decoder {
        /// libsndfile; for Opus and Vorbis of 3 to 8 channels, with the order it gives the channels in, turned into
        /// WAV order on reading.
        case libsndfile(SndFile, opusOrder: OpusChannelOrder?)
        /// FFmpeg, for what libsndfile does not recognise.
        case ffmpeg(FFmpegDecoder)
    }

    deinit {
        // Its thread would receive on for no one.
        live?.close()
    }

    /// Length in seconds: ``frameCount`` / ``sampleRate``; infinite for a live stream.
    public var duration: TimeInterval { frameCount == Int64.max ? .infinity : Double(frameCount) / sampleRate }

    /// Opens the file at `url` for reading. An `http` or `https` address is read as it downloads (see
    /// ``RemoteCache``): opening waits for the bytes of the header, and a read for the bytes it needs, which are asked
    /// for (a range request) as soon as a read or seek reaches them.
    ///
    /// - Parameters:
    ///   - url: A file's URL, or an `http` or `https` address.
    ///   - options: The header fields and user agent of an address's requests; unused for a file.
    ///   - cache: Where an address's bytes are kept; unused for a file.
    /// - Throws: ``AudioFileError`` saying what is wrong: missing, not a regular file, empty, not audio,
    ///   damaged or unsupported; for an address, ``AudioFileError/Reason/downloadFailed(_:)`` when its bytes cannot
    ///   be had.
    public convenience init(
        forReading url: URL, options: AudioAsset.Options = AudioAsset.Options(), cache: RemoteCache = .shared
    ) throws(AudioFileError) {
        try self.init(forReading: url, options: options, cache: cache, timeline: nil)
    }

    /// Opens `url` as ``init(forReading:options:cache:)`` does; a live HLS playlist on `timeline`, shared by the files
    /// a player opens of one item (a new one when nil).
    convenience init(forReading url: URL, options: AudioAsset.Options, cache: RemoteCache, timeline: LiveTimeline?) throws(AudioFileError) {
        if RemoteAsset.isRemote(url) {
            try self.init(remote: RemoteAsset.open(url, options: options, cache: cache), timeline: timeline)
        } else {
            try self.init(local: url)
        }
    }

    /// Opens the bytes of `asset` as they download, or, when its first answer says it is a live stream, the stream as it
    /// comes.
    convenience init(remote asset: RemoteAsset, timeline: LiveTimeline? = nil) throws(AudioFileError) {
        let name = asset.name
        let reader: RemoteReader
        do {
            reader = try RemoteReader(asset)
        } catch .liveStream {
            try self.init(live: asset.url, options: asset.options)
            return
        } catch {
            throw AudioFileError(path: name, reason: .downloadFailed(error))
        }
        if reader.byteCount == 0 { throw AudioFileError(path: name, reason: .empty) }
        let file: SndFile
        do {
            file = try SndFile(reading: reader)
        } catch {
            if let failure = reader.failure { throw AudioFileError(path: name, reason: .downloadFailed(failure)) }
            let refusal = AudioFileError(path: name, opening: error)
            guard case .unrecognized = refusal.reason else { throw refusal }
            do {
                try self.init(ffmpeg: FFmpegDecoder(.bytes(reader, name: name), timeline: timeline), url: asset.url, name: name, byteCount: reader.byteCount, remote: reader)
            } catch {
                if let failure = reader.failure { throw AudioFileError(path: name, reason: .downloadFailed(failure)) }
                if case .unrecognized = error.reason { throw refusal }
                throw error
            }
            return
        }
        try self.init(libsndfile: file, url: asset.url, name: name, byteCount: reader.byteCount, remote: reader)
    }

    /// Opens the live stream at `url` (whose first answer said it is one), read through FFmpeg as it comes.
    private convenience init(live url: URL, options: AudioAsset.Options) throws(AudioFileError) {
        let name = RemoteAsset.displayName(of: url)
        let request: (lines: [String], userAgent: String?)
        do {
            request = try options.request()
        } catch {
            throw AudioFileError(path: name, reason: .downloadFailed(error))
        }
        let stream = LiveStream(url: url, name: name, options: options, request: request)
        do {
            let decoder = try FFmpegDecoder(.stream(stream, name: name))
            try self.init(
                url: url, name: name, byteCount: 0, remote: nil, live: stream, decoder: .ffmpeg(decoder), format: decoder.format,
                formatName: decoder.formatName, sampleRate: decoder.sampleRate, channelCount: decoder.channelCount,
                frameCount: decoder.frameCount, bitDepth: nil, isIntegerPCM: false, metadata: decoder.metadata)
        } catch {
            stream.close()
            if let failure = stream.failure { throw AudioFileError(path: name, reason: .downloadFailed(failure)) }
            throw error
        }
    }

    /// Opens a local file.
    private convenience init(local url: URL) throws(AudioFileError) {
        let path = url.path
        let descriptor: FileDescriptor
        let byteCount: Int64
        do {
            // Non-blocking, so that opening a FIFO returns at once and is then refused below.
            descriptor = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec])
        } catch {
            throw AudioFileError(path: path, opening: error as? Errno ?? .ioError)
        }
        do {
            let status = try descriptor.stat()
            if let kind = Self.kindIfNotRegular(status.type) {
                throw AudioFileError(path: path, reason: .notARegularFile(kind))
            }
            if status.size == 0 { throw AudioFileError(path: path, reason: .empty) }
            byteCount = Int64(status.size)
        } catch let error as AudioFileError {
            try? descriptor.close()
            throw error
        } catch {
            try? descriptor.close()
            throw AudioFileError(path: path, opening: error as? Errno ?? .ioError)
        }
        let file: SndFile
        do {
            file = try SndFile(descriptor: descriptor, mode: .read)
        } catch {
            // libsndfile's word for an impossible WAV header is "SF_INFO struct incomplete": say which field it is.
            if let again = try? FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec]) {
                defer { try? again.close() }
                if let impossibility = WAVFormatFields(descriptor: again)?.impossibility {
                    throw AudioFileError(path: path, reason: .malformed(impossibility))
                }
            }
            let refusal = AudioFileError(path: path, opening: error)
            guard case .unrecognized = refusal.reason else { throw refusal }
            do {
                try self.init(ffmpeg: FFmpegDecoder(.file(path: path)), url: url, name: path, byteCount: byteCount, remote: nil)
            } catch {
                // Neither knows it: libsndfile's reason, as before FFmpeg was asked.
                if case .unrecognized = error.reason { throw refusal }
                throw error
            }
            return
        }
        try self.init(libsndfile: file, url: url, name: path, byteCount: byteCount, remote: nil)
    }

    /// A file FFmpeg reads.
    private convenience init(ffmpeg decoder: FFmpegDecoder, url: URL, name: String, byteCount: Int64, remote: RemoteReader?) throws(AudioFileError) {
        try self.init(
            url: url, name: name, byteCount: byteCount, remote: remote, decoder: .ffmpeg(decoder), format: decoder.format,
            formatName: decoder.formatName, sampleRate: decoder.sampleRate, channelCount: decoder.channelCount,
            frameCount: decoder.frameCount, bitDepth: decoder.bitDepth, isIntegerPCM: false, metadata: decoder.metadata)
        // A live playlist starts at its live edge, some way into its time line.
        framePosition = decoder.position
    }

    /// A file libsndfile reads.
    private convenience init(libsndfile file: SndFile, url: URL, name: String, byteCount: Int64, remote: RemoteReader?) throws(AudioFileError) {
        let info = file.info
        let format = Self.format(of: info.format)
        let (bitDepth, isIntegerPCM) = Self.sampleSize(of: info.format)
        var frames = Int64(info.frames)
        let isCutShort = frames == Int64.max && (format == .vorbis || format == .flac) && remote == nil
        if isCutShort {
            // libsndfile's "unknown": an Ogg Vorbis file cut short has no last page to read its length from, and a FLAC
            // recording cut short no length in its header, which is written when it ends. Its length is what decodes,
            // counted once here. (An Opus file cut so is repaired from its whole packets instead.)
            frames = Self.readableFrames(of: file)
            guard frames > 0 else { throw AudioFileError(path: name, reason: .malformed("it is cut short before any of its sound")) }
        }
        let isPartial = remote == nil && [.wav, .caf, .aiff].contains(format) && file.headerPromisesMoreThanItHolds
        try self.init(
            url: url, name: name, byteCount: byteCount, remote: remote,
            decoder: .libsndfile(file, opusOrder: format == .opus || format == .vorbis ? OpusChannelOrder(channelCount: Int(info.channels)) : nil),
            format: format, formatName: file.containerName, sampleRate: Int(info.samplerate), channelCount: Int(info.channels),
            frameCount: frames, bitDepth: bitDepth, isIntegerPCM: isIntegerPCM,
            metadata: Self.metadata(of: file, format: format, from: remote.map { .bytes($0, name: name) } ?? .file(path: url.path)))
        self.isCutShort = isCutShort || isPartial
    }

    /// How many frames `file` decodes to from its start to where decoding stops (its end, or where it is cut short);
    /// the read position is back at the start after.
    private static func readableFrames(of file: SndFile) -> Int64 {
        var count: Int64 = 0
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * Int(file.info.channels))
        defer { buffer.deallocate() }
        while let read = try? file.read(into: buffer), read > 0 { count += Int64(read) }
        guard (try? file.seek(toFrame: 0)) != nil else { return 0 }
        return count
    }

    /// What libsndfile reads of `file`'s tags, and its markers: WAV cue points (named by their labels), an Opus file's
    /// `CHAPTERnnn` comments, or the chapters FFmpeg reads in a FLAC, Vorbis or MP3 file. AIFF's one free text is its
    /// comment, or its date when it reads as one. Markers outside what libsndfile reads are read again from `origin`,
    /// the file or the address's bytes: an address's are those of its header, downloaded already to open it.
    private static func metadata(of file: SndFile, format: AudioFileFormat, from origin: FFmpegInput.Origin) -> AudioMetadata {
        var metadata = AudioMetadata(
            title: AudioMetadata.text(file.string(Int32(SF_STR_TITLE))),
            creationDate: file.string(Int32(SF_STR_DATE)).flatMap(AudioMetadata.date(fromText:)),
            artist: AudioMetadata.text(file.string(Int32(SF_STR_ARTIST))),
            album: AudioMetadata.text(file.string(Int32(SF_STR_ALBUM))),
            comment: AudioMetadata.text(file.string(Int32(SF_STR_COMMENT))))
        if format == .aiff, metadata.creationDate == nil, let date = metadata.comment.flatMap(AudioMetadata.date(fromText:)) {
            metadata.creationDate = date
            metadata.comment = nil
        }
        switch format {
        case .opus:
            metadata.markers = OpusTags(origin)?.markers(sampleRate: Double(file.info.samplerate)) ?? []
        case .flac, .vorbis, .mp3:
            let read = ChapterCopy.read(origin, sampleRate: Double(file.info.samplerate))
            metadata.markers = read?.markers ?? []
            metadata.comment = metadata.comment ?? read?.comment
        default:
            metadata.markers = file.cues.map { AudioMarker(framePosition: $0.frame, name: $0.name) }
                .filter { $0.framePosition <= Int64(file.info.frames) }.sorted { $0.framePosition < $1.framePosition }
        }
        return metadata
    }

    /// Checks what the decoder says of the file against what any real file has, and keeps it.
    private init(
        url: URL, name: String, byteCount: Int64, remote: RemoteReader?, live: LiveStream? = nil, decoder: Decoder, format: AudioFileFormat,
        formatName: String,
        sampleRate: Int, channelCount: Int, frameCount: Int64, bitDepth: Int?, isIntegerPCM: Bool, metadata: AudioMetadata
    ) throws(AudioFileError) {
        let path = name
        guard (1...Self.maximumChannelCount).contains(channelCount) else {
            throw AudioFileError(path: path, reason: .malformed("its header claims \(channelCount) channels"))
        }
        guard AudioSettings.sampleRates.contains(Double(sampleRate)) else {
            throw AudioFileError(path: path, reason: .malformed("its header claims a rate of \(sampleRate) Hz"))
        }
        // A live stream's length is Int64.max until it ends; any other file claiming it is damaged.
        let isLive = if case .ffmpeg(let ffmpeg) = decoder { ffmpeg.isLive } else { false }
        guard frameCount >= 0, frameCount < Int64(Int32.max) * 1024 || isLive else {
            throw AudioFileError(path: path, reason: .malformed(
                frameCount < 0 ? "its header claims a negative length" : "its header claims more frames than any file holds"))
        }
        self.url = url
        self.name = name
        self.remote = remote
        self.live = live
        self.byteCount = byteCount
        self.decoder = decoder
        self.format = format
        self.formatName = formatName
        self.sampleRate = Double(sampleRate)
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.bitDepth = bitDepth
        self.isIntegerPCM = isIntegerPCM
        self.metadata = metadata
    }

    /// Whether the file is AAC in an MP4 or MOV (M4A, 3GP, ...): its packets copy into an M4A as they are.
    var isAACInMP4: Bool {
        guard format == .aac, case .ffmpeg(let decoder) = decoder else { return false }
        return decoder.isMP4
    }

    /// Reads interleaved frames into `buffer` (its count a multiple of ``channelCount``), from
    /// ``framePosition`` on; returns the frames read, fewer than room for only at the end, 0 past it.
    ///
    /// - Throws: ``AudioFileError`` with ``AudioFileError/Reason/readFailed(_:)`` when decoding fails, or
    ///   ``AudioFileError/Reason/malformed(_:)`` when a file FFmpeg reads turns out damaged (a packet that does not
    ///   decode, an end before the length its header states).
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int {
        switch decoder {
        case .libsndfile(_, let opusOrder):
            let frames = try readSamples(into: buffer)
            opusOrder?.vorbisToWAV(UnsafeMutableBufferPointer(rebasing: buffer[..<(frames * channelCount)]))
            return frames
        case .ffmpeg(let ffmpeg):
            let frames = try downloading { () throws(AudioFileError) in try ffmpeg.read(into: buffer) }
            // A live playlist's position follows its time line, which jumps past segments skipped.
            framePosition = ffmpeg.timeline == nil ? framePosition + Int64(frames) : ffmpeg.position
            frameCount = ffmpeg.frameCount
            if let live {
                // Metadata before the audio just decoded starts where this read ended, within a packet (26 ms of MP3).
                timedMetadata += live.takeMetadata(before: ffmpeg.decodedByteOffset).map { (framePosition, $0) }
            }
            return frames
        }
    }

    /// Runs `body`, a read or seek; for an address, reports a failed download as what it is: the decoder took it
    /// for the end of the file, or damage.
    private func downloading<T>(_ body: () throws(AudioFileError) -> T) throws(AudioFileError) -> T {
        let result: Result<T, AudioFileError> = Result { () throws(AudioFileError) in try body() }
        if let failure = remote?.failure ?? live?.failure ?? segmentFailure {
            throw AudioFileError(path: name, reason: .downloadFailed(failure))
        }
        return try result.get()
    }

    /// Why a segment of an HLS playlist could not be had, once one could not.
    private var segmentFailure: DownloadError? {
        guard case .ffmpeg(let decoder) = decoder else { return nil }
        return decoder.segmentFailure
    }

    /// Whether a read is waiting for bytes of an `http` address to download now.
    var isWaitingForDownload: Bool { (remote?.isWaiting ?? live?.isWaiting)?.load(ordering: .relaxed) ?? false }

    /// What a live stream's station said plays, read since the last call: each with the frame where it starts to
    /// play, in order. Empty for other files.
    public func takeTimedMetadata() -> [(framePosition: Int64, metadata: TimedMetadata)] {
        defer { timedMetadata.removeAll() }
        return timedMetadata.map { ($0.frame, TimedMetadata($0.metadata, time: Double($0.frame) / sampleRate)) }
    }

    /// Reads up to `frameCount` interleaved frames into a new array (allocates: not for a real-time thread).
    public func read(frameCount: Int) throws(AudioFileError) -> [Float] {
        var samples = [Float](repeating: 0, count: frameCount * channelCount)
        let frames = try samples.withUnsafeMutableBufferPointer { buffer throws(AudioFileError) in
            try read(into: buffer)
        }
        samples.removeSubrange((frames * channelCount)...)
        return samples
    }

    /// Reads from ``framePosition`` to the end and returns the levels of those frames, per channel.
    public func measureLevels() throws(AudioFileError) -> AudioLevels {
        try measure().levels
    }

    /// Reads from ``framePosition`` to the end and returns the loudness of those frames (EBU R 128, by libebur128):
    /// integrated loudness, loudness range and true peak.
    ///
    /// It decodes every frame and oversamples them 4× for the true peak: a few seconds of CPU for an hour of audio.
    ///
    /// - Throws: ``AudioFileError`` when the file cannot be read, or libebur128 runs out of memory.
    public func measureLoudness() throws(AudioFileError) -> AudioLoudness {
        guard let loudness = try measure(loudness: true).loudness else {
            throw AudioFileError(path: url.path, reason: .readFailed("its loudness could not be measured: out of memory"))
        }
        return loudness
    }

    /// Reads from ``framePosition`` to the end and returns, in one pass, the levels of those frames, their waveform (at
    /// `samplesPerPixel`, or wider to keep within `maximumLength` pixels, as a recording's is) and, when asked, their
    /// loudness; the loudness is `nil` when not asked for or libebur128 failed.
    package func measure(
        loudness: Bool = false, samplesPerPixel: Int = Waveform.standardSamplesPerPixel,
        keepingAtMost maximumLength: Int? = Waveform.keptLength
    ) throws(AudioFileError) -> (levels: AudioLevels, waveform: Waveform, loudness: AudioLoudness?) {
        var meter = AudioMeasurement(
            channelCount: channelCount, sampleRate: sampleRate, measuringLoudness: loudness,
            samplesPerPixel: samplesPerPixel, keepingAtMost: maximumLength)
        var samples = [Float](repeating: 0, count: 16384 * channelCount)
        try samples.withUnsafeMutableBufferPointer { buffer throws(AudioFileError) in
            while case let frames = try read(into: buffer), frames > 0 {
                meter.add(UnsafeBufferPointer(rebasing: buffer[..<(frames * channelCount)]))
            }
        }
        return (meter.measuredLevels, meter.waveform, meter.loudness)
    }

    /// Reads PCM as left-justified 32-bit integers: 16- and 24-bit samples come back exactly, which a
    /// float round trip through libsndfile does not guarantee. Only for libsndfile's PCM (``isIntegerPCM``).
    func read(into buffer: UnsafeMutableBufferPointer<Int32>) throws(AudioFileError) -> Int {
        try readSamples(into: buffer)
    }

    private func readSamples<Sample: SndFileSample>(into buffer: UnsafeMutableBufferPointer<Sample>) throws(AudioFileError) -> Int {
        guard case .libsndfile(let file, _) = decoder else { preconditionFailure("integer samples are read from libsndfile's PCM only") }
        // A file cut short is read up to what decoded when it was counted: past it, the decoder finds its torn end.
        let limit = isCutShort ? Int(max(0, frameCount - framePosition)) * channelCount : buffer.count
        let buffer = UnsafeMutableBufferPointer(rebasing: buffer[..<min(buffer.count, limit)])
        guard !buffer.isEmpty else { return 0 }
        let frames = try downloading { () throws(AudioFileError) -> Int? in
            do {
                return try file.read(into: buffer)
            } catch {
                // A FLAC file cut where its header still tells its whole length: what decoded up to the cut is the file.
                if format == .flac, framePosition > 0, remote == nil { return nil }
                throw AudioFileError(path: name, reason: .readFailed("\(error)"))
            }
        }
        guard let frames else {
            isCutShort = true
            frameCount = framePosition
            return 0
        }
        framePosition += Int64(frames)
        return frames
    }

    /// Moves ``framePosition`` to `frame` (0…``frameCount``); the next read starts exactly there. In an MP4 or MOV
    /// it jumps to a packet shortly before the frame (AAC's samples then converge to within rounding of a reading from
    /// the start, as Opus' do); in an ADTS, WMA or AMR file a seek back decodes again from the start: exact, and as
    /// slow as decoding what lies before the frame. Where ``frameCount`` is still an estimate, a frame past the real
    /// end stops at the end. A live HLS playlist is read afresh and opened again at the frame's segment, landing as
    /// ``isLive`` says.
    ///
    /// - Throws: ``AudioFileError`` when `frame` is out of range or the file cannot seek.
    public func seek(toFrame frame: Int64) throws(AudioFileError) {
        if live != nil, frame != framePosition {
            throw AudioFileError(path: name, reason: .readFailed("a live stream cannot seek: it plays as it comes"))
        }
        guard (0...frameCount).contains(frame) else {
            throw AudioFileError(path: name, reason: .readFailed("frame \(frame) is outside 0…\(frameCount)"))
        }
        framePosition = try downloading { () throws(AudioFileError) -> Int64 in
            switch decoder {
            case .libsndfile(let file, _):
                do {
                    try file.seek(toFrame: frame)
                } catch {
                    throw AudioFileError(path: name, reason: .readFailed("\(error)"))
                }
                return frame
            case .ffmpeg(let ffmpeg):
                try ffmpeg.seek(toFrame: frame)
                frameCount = ffmpeg.frameCount
                // Short of `frame` when an estimated length put it past the end.
                return ffmpeg.position
            }
        }
    }

    static func kindIfNotRegular(_ type: FileType) -> String? {
        switch type {
        case .regular: nil
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .characterSpecial: "a character device"
        case .blockSpecial: "a block device"
        case .socket: "a socket"
        default: "not a regular file"
        }
    }

    private static func format(of code: Int32) -> AudioFileFormat {
        let container = Int(code) & SF_FORMAT_TYPEMASK
        let codec = Int(code) & SF_FORMAT_SUBMASK
        switch container {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64: return .wav
        case SF_FORMAT_CAF: return .caf
        case SF_FORMAT_FLAC: return .flac
        case SF_FORMAT_AIFF: return .aiff
        case SF_FORMAT_MPEG: return .mp3
        case SF_FORMAT_OGG where codec == SF_FORMAT_OPUS: return .opus
        case SF_FORMAT_OGG where codec == SF_FORMAT_VORBIS: return .vorbis
        default: return .other
        }
    }

    private static func sampleSize(of code: Int32) -> (bits: Int?, isInteger: Bool) {
        switch Int(code) & SF_FORMAT_SUBMASK {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: (8, true)
        case SF_FORMAT_PCM_16: (16, true)
        case SF_FORMAT_PCM_24: (24, true)
        case SF_FORMAT_PCM_32: (32, true)
        case SF_FORMAT_FLOAT: (32, false)
        case SF_FORMAT_DOUBLE: (64, false)
        default: (nil, false)
        }
    }
}
