import FoundationEssentials

/// A file libsndfile does not read (M4A, MP4 and MOV audio, ADTS AAC, WMA, AMR), decoded by FFmpeg to interleaved
/// 32-bit float frames with an exact frame count and sample-exact seeking: ``AudioFile``'s second backend.
///
/// The frame count is what the container states when it states it exactly (MP4 and MOV, whose edit list gives the
/// encoder's priming and padding, which FFmpeg drops), else what a first pass decodes. Bytes read through callbacks
/// (an address's) are not decoded ahead, which would wait for the whole download: their count is the container's
/// estimate (see ``isLengthEstimated``) until decoding reaches the end. Seeking lands on the exact
/// frame: in an MP4 or MOV by a jump to a packet ``preroll`` frames before it and the frames' timestamps from there
/// (the decoder's output converges to within rounding, as Opus' does after a seek); elsewhere (ADTS, ASF and AMR
/// have no exact index), or near the start, where the priming is dropped, by decoding up to it, from the start when
/// it is behind. A live HLS playlist's position counts on its time line (``LiveTimeline``), following the frames'
/// timestamps past segments the demuxer skipped; a seek opens it again at the segment.
///
/// **Not thread-safe**: one thread at a time.
final class FFmpegDecoder {
    /// The file's path, or the address of bytes read through callbacks: what errors name.
    let path: String
    private var source: FFmpegInput.Origin
    let sampleRate: Int
    let channelCount: Int
    /// The frames in the stream; while ``isLengthEstimated``, an estimate kept ahead of ``position`` as long as
    /// frames decode, and set to the position where they end.
    private(set) var frameCount: Int64
    /// Whether it reads a live stream or a live HLS playlist, with no end yet: ``frameCount`` is `Int64.max` until it
    /// ends.
    let isLive: Bool
    /// A live HLS playlist's time line, on which ``position`` counts (see ``LiveTimeline``); nil for anything else.
    let timeline: LiveTimeline?
    /// The media sequence number of the segment a live playlist was opened at, until its first frame is placed there.
    private var startSequence: Int64?
    /// Whether a frame of a live playlist has been placed on its time line since it was opened.
    private var isPlaced = false
    /// Whether ``frameCount`` is the container's estimate (ADTS, ASF and AMR read through callbacks), not yet what
    /// decoding the whole stream counted.
    private var isLengthEstimated = false
    /// The codec, as ``AudioFileFormat`` names it.
    let format: AudioFileFormat
    /// The container's and the codec's long names.
    let formatName: String
    /// Bits per sample of a lossless codec (ALAC); `nil` for a lossy one.
    let bitDepth: Int?
    /// Whether the file is an MP4 or MOV (M4A, 3GP, ...), whose index states every packet's time and the audio's exact
    /// length: its AAC packets copy into an M4A as they are (``M4ACopy``).
    let isMP4: Bool
    let metadata: AudioMetadata

    private var input: FFmpegInput
    /// The frames read so far in this pass: the position.
    private(set) var position: Int64 = 0
    /// The decoded frame being read, and how far.
    private var pending: FFmpegInput.Samples?
    private var pendingOffset = 0
    /// The timestamp of frame 0, where the container seeks by timestamps (MP4, MOV).
    private var origin: Int64?

    /// Frames decoded and dropped before the one sought after a jump: the decoder starts afresh, and an AAC frame
    /// overlaps the one before it (2048 frames in HE-AAC). Two such frames leave a margin.
    static let preroll: Int64 = 4096

    /// Opens `origin`, a file or bytes libsndfile did not recognise; a live HLS playlist on `timeline` (a new one when
    /// nil), where it starts at its live edge.
    ///
    /// - Throws: ``AudioFileError``: `unrecognized` when the file is in none of ``FFmpegInput/containers``,
    ///   `noAudio`, `unsupported` for a codec without a decoder, `malformed` for a file that does not open or decode.
    init(_ source: FFmpegInput.Origin, timeline: LiveTimeline? = nil) throws(AudioFileError) {
        self.source = source
        path = switch source {
        case .file(let path): path
        case .bytes(_, let name), .stream(_, let name): name
        }
        input = try Self.open(source, path: path)
        sampleRate = input.sampleRate
        channelCount = input.channelCount
        formatName = input.formatName
        bitDepth = input.losslessBitDepth
        format = switch input.codecName {
        case "aac", "aac_latm": .aac
        case "alac": .alac
        case "amr_nb", "amr_wb": .amr
        case let name where name.hasPrefix("wma"): .wma
        // What a live stream (read only by FFmpeg) may hold.
        case "mp3": .mp3
        case "opus": .opus
        case "vorbis": .vorbis
        default: .other
        }
        metadata = input.metadata
        isMP4 = input.statedFrameCount != nil
        isLive = if case .stream = source { true } else { input.isLivePlaylist }
        self.timeline = input.isLivePlaylist ? timeline ?? LiveTimeline() : nil
        if case .stream = source {
            // No end: the length stays past the position until the stream ends (it failed), where it settles.
            frameCount = Int64.max
            isLengthEstimated = true
        } else if input.isLivePlaylist {
            // A live HLS playlist: no end until it says it ends.
            frameCount = Int64.max
            isLengthEstimated = true
        } else if let stated = input.statedFrameCount {
            frameCount = stated
            origin = try pendingSamples()?.timestamp
        } else if case .bytes = source, let estimate = input.estimatedFrameCount {
            frameCount = estimate
            isLengthEstimated = true
        } else {
            // Counted by decoding: ADTS, ASF and AMR state their length only as an estimate from the bit rate.
            var counted: Int64 = 0
            while let samples = try Self.next(from: input, path: path) { counted += Int64(samples.count) }
            frameCount = counted
            input = try Self.open(source, path: path)
        }
        if let timeline = self.timeline {
            let windows = input.takePlaylistWindows()
            windows.forEach(timeline.read)
            startSequence = windows.first.map { $0.firstSequence + Int64($0.liveEdgeIndex) }
            // The first frame says where on the time line playing starts.
            _ = try pendingSamples()
        }
    }

    /// Why a segment of a playlist (HLS) could not be had, once one could not.
    var segmentFailure: DownloadError? { input.nestedFailure }

    /// The byte offset of the audio decoded last, in the bytes read: where in a live stream the frames just read came.
    var decodedByteOffset: Int64 { input.lastPacketPosition }

    /// Reads up to `buffer.count / channelCount` frames, interleaved; returns how many (0 at the end).
    ///
    /// - Throws: ``AudioFileError`` with `malformed` when a packet does not decode or the stream ends before the
    ///   frame count its container states, `readFailed` when reading the file fails.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int {
        let room = buffer.count / channelCount
        let isEstimated = isLengthEstimated
        let wanted = isEstimated ? room : min(room, Int(frameCount - position))
        var done = 0
        while done < wanted {
            guard let samples = try pendingSamples() else {
                if isEstimated { break }
                throw AudioFileError(path: path, reason: .malformed(
                    "it ends after \(position) of the \(frameCount) frames its header states"))
            }
            let count = min(samples.count - pendingOffset, wanted - done)
            Self.copy(samples, from: pendingOffset, count: count, into: buffer.baseAddress! + done * channelCount)
            pendingOffset += count
            done += count
            position += Int64(count)
        }
        // At the estimate, decoding on says whether frames follow (the length then grows past the position) or not.
        if isLengthEstimated, position >= frameCount { _ = try pendingSamples() }
        return done
    }

    /// Moves to `frame` (0…``frameCount``): in an MP4 or MOV by a jump when it is back or more than a second ahead,
    /// and past the ``preroll``; else forward by decoding up to it, or back by a new pass from the start. Where the
    /// length is an estimate, a frame past the real end stops at the end (``position``).
    func seek(toFrame frame: Int64) throws(AudioFileError) {
        if let timeline { return try seekLive(to: frame, on: timeline) }
        var jumped = false
        if let origin, frame > 2 * Self.preroll, frame < position || frame - position > Int64(sampleRate) {
            if try jump(to: frame, origin: origin) { return }
            jumped = true
        }
        if frame < position || jumped {
            input = try Self.open(source, path: path)
            position = 0
            pending = nil
        }
        // Sought past the end the estimate put further (reaching the end settles it): the position is the end.
        let isEstimated = isLengthEstimated
        if try !decode(upTo: frame), !isEstimated {
            throw AudioFileError(path: path, reason: .malformed("it ends after \(position) of the \(frameCount) frames its header states"))
        }
    }

    /// Decodes on, dropping what it decodes, until ``position`` is `frame`; false when the stream ends first.
    private func decode(upTo frame: Int64) throws(AudioFileError) -> Bool {
        while position < frame {
            guard let samples = try pendingSamples() else { return false }
            let count = min(samples.count - pendingOffset, Int(frame - position))
            pendingOffset += count
            position += Int64(count)
        }
        return true
    }

    /// Moves a live playlist to `frame` of its time line, as ``LiveTimeline/landing(for:in:)`` places it in the window
    /// the playlist, read afresh, lists now: opens it again at the segment (the demuxer's own seek counts a live
    /// window's times from the first packet it read, which is not where the window starts once it has moved), and
    /// decodes up to the frame.
    private func seekLive(to frame: Int64, on timeline: LiveTimeline) throws(AudioFileError) {
        guard case .bytes(let bytes, _) = source, let playlist = bytes as? RemoteReader else { return }
        let asset = try RemoteAsset.open(playlist.asset.url, options: playlist.asset.options, cache: playlist.asset.cache, fresh: true)
        let fresh: RemoteReader
        do {
            fresh = try RemoteReader(asset)
        } catch {
            throw AudioFileError(path: path, reason: .downloadFailed(error))
        }
        guard let window = PlaylistWindow(bytes: fresh) else {
            throw AudioFileError(path: path, reason: .unsupported("a live playlist of variants cannot seek: play one of its variants"))
        }
        timeline.read(window)
        let landing = timeline.landing(for: Double(frame) / Double(sampleRate), in: window)
        let reopened = FFmpegInput.Origin.bytes(fresh, name: path)
        input = try Self.open(reopened, path: path, liveSegment: landing.segment)
        source = reopened
        input.takePlaylistWindows().forEach(timeline.read)
        startSequence = window.firstSequence + Int64(landing.segment)
        pending = nil
        isPlaced = false
        // The first frame places the position on the time line; from there, on to the frame.
        guard try pendingSamples() != nil else { return }
        _ = try decode(upTo: Int64(frames: landing.time, rate: Double(sampleRate)))
    }

    /// Sets ``position`` from where `samples`, just decoded from a live playlist, lie on its time line: at the first
    /// frame since it was opened, and after segments the demuxer skipped (they left the window while nothing read, in a
    /// pause or a stall). Between, the frames are counted: timestamps in the stream's clock would make it jitter.
    private func place(_ samples: FFmpegInput.Samples, on timeline: LiveTimeline) {
        guard let timestamp = samples.timestamp else { return }
        let seconds = input.seconds(ofTimestamp: timestamp)
        if let startSequence {
            timeline.place(timestamp: seconds, atSequence: startSequence)
            self.startSequence = nil
        }
        guard let time = timeline.time(ofTimestamp: seconds) else { return }
        let frame = Int64(frames: time, rate: Double(sampleRate))
        if !isPlaced || abs(frame - position) > Int64(sampleRate / 4) { position = frame }
        isPlaced = true
    }

    /// Seeks the container to a packet ``preroll`` frames before `frame` and decodes up to `frame` by the frames'
    /// timestamps. False when they do not lead there (no timestamp, or one past `frame`): then where decoding is is
    /// unknown, and the caller starts a new pass.
    private func jump(to frame: Int64, origin: Int64) throws(AudioFileError) -> Bool {
        do {
            try input.seek(toTimestamp: origin + frame - Self.preroll)
        } catch {
            return false
        }
        pending = nil
        var end: Int64?
        while let samples = try pendingSamples() {
            guard let timestamp = samples.timestamp, timestamp - origin <= frame else { return false }
            let start = timestamp - origin
            end = start + Int64(samples.count)
            if start + Int64(samples.count) > frame {
                pendingOffset = Int(frame - start)
                position = frame
                return true
            }
            pendingOffset = samples.count
        }
        // Sought to the very end.
        guard end == frame else { return false }
        position = frame
        return true
    }

    /// The frame being read, with samples left in it, decoding the next one when it is used up; `nil` at the end.
    private func pendingSamples() throws(AudioFileError) -> FFmpegInput.Samples? {
        if let pending, pendingOffset < pending.count { return pending }
        pending = nil
        defer {
            // The end found: the length is what decoded. Frames found past the estimate keep it ahead of the
            // position, so that a reader stopping at the length reads on to them.
            if isLengthEstimated {
                if let pending { frameCount = max(frameCount, position + Int64(pending.count)) } else { settleLength() }
            }
        }
        while let samples = try Self.next(from: input, path: path) {
            if let timeline { input.takePlaylistWindows().forEach(timeline.read) }
            guard samples.channelCount == channelCount, samples.sampleRate == sampleRate else {
                throw AudioFileError(path: path, reason: .unsupported(
                    "its audio changes from \(channelCount) channels at \(sampleRate) Hz to \(samples.channelCount) at \(samples.sampleRate) Hz midway"))
            }
            guard samples.count > 0 else { continue }
            if let timeline { place(samples, on: timeline) }
            pending = samples
            pendingOffset = 0
            return samples
        }
        return nil
    }

    /// Makes the length exact, where decoding ended.
    private func settleLength() {
        frameCount = position
        isLengthEstimated = false
    }

    private static func next(from input: FFmpegInput, path: String) throws(AudioFileError) -> FFmpegInput.Samples? {
        do {
            return try input.nextFrame()
        } catch where error.isInvalidData {
            throw AudioFileError(path: path, reason: .malformed("FFmpeg: \(error.message)"))
        } catch {
            throw AudioFileError(path: path, reason: .readFailed(error.message))
        }
    }

    /// Opens `source` through ``FFmpegInput`` (a live playlist at segment `liveSegment` of its window, when given),
    /// saying what is wrong with it as an ``AudioFileError`` naming `path`.
    static func open(_ source: FFmpegInput.Origin, path: String, liveSegment: Int? = nil) throws(AudioFileError) -> FFmpegInput {
        do {
            try FFmpegLibrary.load()
        } catch {
            throw AudioFileError(path: path, reason: .unsupported(error.message))
        }
        do {
            if case .stream = source { return try FFmpegInput(source, containers: FFmpegInput.streamContainers) }
            return try FFmpegInput(source, liveSegment: liveSegment)
        } catch {
            switch error {
            case .unrecognized:
                throw AudioFileError(path: path, reason: .unrecognized("neither libsndfile nor FFmpeg knows its format"))
            case .noAudio:
                throw AudioFileError(path: path, reason: .noAudio)
            case .noDecoder(let codec):
                throw AudioFileError(path: path, reason: .unsupported("its audio is \(codec), which this FFmpeg cannot decode"))
            case .failed(let failure):
                throw AudioFileError(path: path, reason: .malformed("FFmpeg: \(failure.message)"))
            }
        }
    }

    /// Converts `count` frames from `offset` of `samples` into interleaved floats in −1…1 at `destination`.
    private static func copy(_ samples: FFmpegInput.Samples, from offset: Int, count: Int, into destination: UnsafeMutablePointer<Float>) {
        func convert<Sample>(_: Sample.Type, _ value: (Sample) -> Float) {
            let channels = samples.channelCount
            if samples.isPlanar {
                for (channel, plane) in samples.planes.enumerated() {
                    let source = plane.assumingMemoryBound(to: Sample.self) + offset
                    for index in 0..<count { destination[index * channels + channel] = value(source[index]) }
                }
            } else {
                let source = samples.planes[0].assumingMemoryBound(to: Sample.self) + offset * channels
                for index in 0..<(count * channels) { destination[index] = value(source[index]) }
            }
        }
        switch samples.format {
        case .uint8: convert(UInt8.self) { (Float($0) - 128) * 0x1p-7 }
        case .int16: convert(Int16.self) { Float($0) * 0x1p-15 }
        case .int32: convert(Int32.self) { Float($0) * 0x1p-31 }
        case .int64: convert(Int64.self) { Float($0) * 0x1p-63 }
        case .float32: convert(Float.self) { $0 }
        case .float64: convert(Double.self) { Float($0) }
        }
    }
}
