import CFFmpeg

/// Markers in the FLAC, Ogg Vorbis and MP3 files libsndfile writes, which it writes none into and reads none of: the
/// file's packets copied by FFmpeg, undecoded, into a new file with its tags and the markers — `CHAPTERnnn` and
/// `CHAPTERnnnNAME` comments in FLAC and Vorbis (to the millisecond), ID3 `CHAP` frames in MP3 — and read back as
/// FFmpeg reads them, as chapters. FFmpeg writes the comment where its tags have a field for it that libsndfile does
/// not read (Vorbis' `DESCRIPTION`, an ID3 `TXXX` frame), and reads it back.
enum ChapterCopy {
    /// The containers it copies and reads the chapters of, as libavformat names them.
    static let containers: Set<Substring> = ["flac", "ogg", "mp3"]

    /// Copies the audio of `source`, a FLAC, Ogg Vorbis or MP3 file of `frameCount` frames, into a new file at
    /// `destination`, with `metadata`'s tags and markers.
    ///
    /// - Throws: ``AudioFileError``: what opening `source` does, and `writeFailed` when the copy cannot be written.
    static func copy(from source: String, to destination: String, format: AudioFileFormat, metadata: AudioMetadata, frameCount: Int64) throws(AudioFileError) {
        let input: FFmpegInput
        do {
            try FFmpegLibrary.load()
        } catch {
            throw AudioFileError(path: destination, reason: .writeFailed("its markers need \(error.message)"))
        }
        do {
            input = try FFmpegInput(.file(path: source), containers: containers)
        } catch {
            throw AudioFileError(path: source, reason: .malformed("FFmpeg cannot read it again to add its markers"))
        }
        let stored = metadata.stored
        let rate = input.sampleRate
        var tags = AudioMetadata.textFields.compactMap { field, word in stored[keyPath: field].map { (word, $0) } }
        if let date = stored.creationDate { tags.append(("date", AudioMetadata.dateText(date))) }
        // ID3 has chapters of its own; Vorbis comments have the CHAPTER convention, which FFmpeg writes as tags.
        var chapters: [FFmpegOutput.Chapter] = []
        if format == .mp3 {
            chapters = stored.markers.enumerated().map { index, marker in
                let end = index + 1 < stored.markers.count ? stored.markers[index + 1].framePosition : max(frameCount, marker.framePosition)
                return FFmpegOutput.Chapter(start: marker.framePosition, end: end, title: marker.name)
            }
        } else {
            tags += OpusTags.chapterComments(stored.markers, sampleRate: Double(rate)).map { ($0.key, $0.value) }
        }
        do {
            let output = try FFmpegOutput(
                path: destination, container: format == .vorbis ? "ogg" : format.rawValue, tags: tags, chapters: chapters,
                sampleRate: rate, timeBase: input.timeBase, layout: .whole
            ) { stream throws(FFmpegError) in try input.describeCopy(in: stream) }
            while let packet = try input.nextPacket() { try output.write(packet) }
            try output.finish()
        } catch {
            throw AudioFileError(path: destination, reason: .writeFailed("FFmpeg: \(error.message)"))
        }
    }

    /// The markers of the FLAC, Ogg or MP3 file at `origin` (its chapters), at `sampleRate`, and its comment, as FFmpeg
    /// reads them; `nil` when it cannot read the file. Of an address, FFmpeg reads the header and the first packets.
    static func read(_ origin: FFmpegInput.Origin, sampleRate: Double) -> (markers: [AudioMarker], comment: String?)? {
        guard (try? FFmpegLibrary.load()) != nil, let input = try? FFmpegInput(origin, containers: containers) else { return nil }
        let markers = input.chapters.enumerated().map { index, chapter in
            // FFmpeg names an ID3 chapter without a title after its element: `ch0`, `ch1`, ... as it writes them.
            let name = AudioMetadata.text(chapter.title).flatMap { $0 == "ch\(index)" ? nil : $0 }
            return AudioMarker(time: chapter.start, sampleRate: sampleRate, name: name)
        }
        return (markers, AudioMetadata.text(input.tag("comment")))
    }
}
