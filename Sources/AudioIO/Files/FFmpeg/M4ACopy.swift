import CFFmpeg
import FoundationEssentials

/// Copies the AAC packets of an MP4 file — an M4A, MP4 or MOV, or a fragmented MP4 as a recording is written — into a
/// new M4A file laid out as players expect it (its index, `moov`, after the audio), with new tags and chapters: no
/// decoding, no encoding, so the copy decodes to exactly the source's samples.
///
/// The packets keep their timestamps, so the encoder's priming (the first packet's negative timestamp) becomes the
/// copy's edit list, as FFmpeg writes it when it encodes; the copy's length is the source's, or the end of the frames
/// the caller keeps (a fragmented recording states its last packet whole, padding and all). A source cut short (a
/// recording killed mid-fragment) is copied up to its last whole packet.
///
/// A copy of a range of frames (a trim) is cut to the frame the same way, by the edit list, which is what MP4's edit
/// lists are for: whole packets are kept, from the one before the packet holding the first frame kept (an AAC frame
/// overlaps the one before it: a decoder needs that packet to give the first one's samples as it does decoding the
/// whole stream; ``FFmpegInput/framesToSettle``) to the one holding the last. Their timestamps move back by the cut's
/// start, so that the first packet's is negative by what is to be skipped (the packet before, and what the first one
/// holds before the cut), and the last packet's duration ends where the cut ends. libavformat's MP4 muxer writes the
/// edit list from them (`mov_write_edts_tag`: its media time from the first timestamp, its duration to the last
/// packet's end), and its demuxer has the decoder skip what the edit list skips.
enum M4ACopy {
    /// What a copy holds.
    struct Copied {
        /// Frames of audio in the copy.
        var frameCount: Int64
        /// Whether the source's packets were all whole: false when it ended in a packet cut short, or in bytes that do
        /// not read, which were left out.
        var isWhole: Bool
        /// Where the last packet copied ends in the source, in bytes from its start (0 when none was).
        var sourceEnd: Int64
    }

    /// libavformat's muxer for `.m4a`: MP4 with the brand `M4A `, as Apple's files have.
    static let container = "ipod"

    /// Copies the audio of `source` into a new file at `destination`.
    ///
    /// - Parameters:
    ///   - metadata: The copy's tags and markers (in the copy's frames); `nil` keeps the source's title, date, artist,
    ///     album, comment and chapters.
    ///   - frames: The frames to keep, counted from the source's first; `nil` keeps them all. A range from 0 only ends
    ///     the copy (a recording's length, when its last packet states it wrongly); one from later cuts its start too,
    ///     and takes a source whose timestamps count frames (an MP4 or MOV: ``FFmpegInput/statedFrameCount``).
    /// - Throws: ``AudioFileError``: `unsupported` when the source's audio is not AAC, what opening it does, and
    ///   `writeFailed` when the copy cannot be written.
    static func copy(from source: String, to destination: String, metadata: AudioMetadata?, frames kept: Range<Int64>?) throws(AudioFileError) -> Copied {
        let input = try FFmpegDecoder.open(.file(path: source), path: source)
        guard input.codecName == "aac" else {
            throw AudioFileError(path: source, reason: .unsupported("its audio is \(input.codecName), not AAC"))
        }
        let rate = input.sampleRate
        let timeBase = input.timeBase
        /// Frames as timestamps of the stream, and back.
        func units(_ frames: Int64) -> Int64 { av_rescale_q(frames, AVRational(num: 1, den: Int32(rate)), timeBase) }
        func frames(_ units: Int64) -> Int64 { av_rescale_q(units, timeBase, AVRational(num: 1, den: Int32(rate))) }
        let start = kept?.lowerBound ?? 0
        /// What every timestamp kept moves back by; the end of the copy and the frame from which packets are kept, in
        /// the source's timestamps.
        let shift = units(start)
        let limit = kept.map { units($0.upperBound) }
        let settled = start > 0 ? units(start - input.framesToSettle) : nil

        let metadata = metadata ?? input.metadata
        let length = kept.map { Int64($0.count) } ?? input.statedFrameCount
        let output: FFmpegOutput
        do {
            output = try FFmpegOutput(
                path: destination, container: container, tags: tags(metadata), chapters: chapters(metadata.markers, length: length),
                sampleRate: rate, timeBase: timeBase, layout: .whole
            ) { stream throws(FFmpegError) in try input.describeCopy(in: stream) }
        } catch {
            throw AudioFileError(path: destination, reason: .writeFailed("FFmpeg: \(error.message)"))
        }
        var held = av_packet_alloc()
        defer { av_packet_free(&held) }
        guard let held else { throw AudioFileError(path: destination, reason: .writeFailed("out of memory")) }
        var isHolding = false
        var isWhole = true
        do throws(FFmpegError) {
            while true {
                let next: UnsafeMutablePointer<AVPacket>?
                do {
                    next = try input.nextPacket()
                } catch {
                    // Bytes that do not read after the last whole fragment: the end of what a killed recording wrote.
                    isWhole = false
                    break
                }
                guard let packet = next else { break }
                if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                    isWhole = false
                    break
                }
                if let limit, packet.pointee.pts != cffmpeg_no_timestamp(), packet.pointee.pts >= limit { break }
                // Before the packets the decoder settles on: not needed for what is kept.
                if let settled, packet.pointee.pts + packet.pointee.duration <= settled { continue }
                // Held back one packet: the last one's duration may be set to end where the copy ends.
                if isHolding { try output.write(held) }
                av_packet_unref(held)
                av_packet_move_ref(held, packet)
                held.pointee.pts -= shift
                held.pointee.dts -= shift
                isHolding = true
            }
            guard isHolding else {
                try output.finish()
                return Copied(frameCount: 0, isWhole: isWhole, sourceEnd: 0)
            }
            if let limit { held.pointee.duration = limit - shift - held.pointee.pts }
            let end = frames(held.pointee.pts + held.pointee.duration)
            let sourceEnd = held.pointee.pos >= 0 ? held.pointee.pos + Int64(held.pointee.size) : 0
            try output.write(held)
            try output.finish()
            return Copied(frameCount: max(0, end), isWhole: isWhole, sourceEnd: sourceEnd)
        } catch {
            throw AudioFileError(path: destination, reason: .writeFailed("FFmpeg: \(error.message)"))
        }
    }

    /// `metadata` as libavformat's MP4 muxer takes it: `title` (`©nam`), `artist` (`©ART`), `album` (`©alb`), `comment`
    /// (`©cmt`), `date` (`©day`, ISO 8601) and `creation_time` (the header's creation time).
    static func tags(_ metadata: AudioMetadata) -> [(String, String)] {
        let stored = metadata.stored
        var tags = AudioMetadata.textFields.compactMap { field, word in stored[keyPath: field].map { (word, $0) } }
        if let date = stored.creationDate {
            tags += [("date", AudioMetadata.dateText(date)), ("creation_time", AudioMetadata.dateText(date))]
        }
        return tags
    }

    /// Markers as MP4 chapters, each from its marker to the next (the last to `length`). QuickTime's chapters begin at
    /// the start, so markers that do not are preceded by an untitled chapter from 0, which
    /// ``markers(fromChapters:sampleRate:)`` leaves out.
    static func chapters(_ markers: [AudioMarker], length: Int64?) -> [FFmpegOutput.Chapter] {
        let markers = AudioMarker.stored(markers)
        guard let first = markers.first else { return [] }
        let end = max(length ?? 0, (markers.last?.framePosition ?? 0) + 1)
        var chapters = first.framePosition > 0 ? [FFmpegOutput.Chapter(start: 0, end: first.framePosition, title: nil)] : []
        for (index, marker) in markers.enumerated() {
            let next = index + 1 < markers.count ? markers[index + 1].framePosition : end
            chapters.append(FFmpegOutput.Chapter(start: marker.framePosition, end: max(next, marker.framePosition), title: marker.name))
        }
        return chapters
    }

    /// The markers that `chapters` (starts in seconds) stand for, at `sampleRate`: an untitled first chapter at the start
    /// is only what holds the place before the first marker.
    static func markers(fromChapters chapters: [(start: Double, title: String?)], sampleRate: Double) -> [AudioMarker] {
        chapters.enumerated().compactMap { index, chapter in
            let title = AudioMetadata.text(chapter.title)
            if index == 0, chapter.start == 0, title == nil, chapters.count > 1 { return nil }
            return AudioMarker(time: chapter.start, sampleRate: sampleRate, name: title)
        }
    }
}
