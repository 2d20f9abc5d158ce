import AudioIO
import FoundationEssentials

/// What the index records of an audio file, read from the file itself (one pass for the levels and the loudness).
struct AudioFileFacts {
    let format: AudioFileFormat
    let sampleRate: Double
    let channelCount: Int
    let duration: Double
    let byteCount: Int64
    let metadata: AudioMetadata
    let levels: AudioLevels
    let loudness: AudioLoudness?

    /// Reads the facts of the file at `url`.
    ///
    /// - Throws: ``AudioFileError`` when it cannot be read or holds no audio frames (a recording that died
    ///   before its first frame reached the disk): such a file is no memo.
    init(url: URL) throws {
        let file = try AudioFile(forReading: url)
        guard file.frameCount > 0 else { throw AudioFileError(path: url.path, reason: .noAudio) }
        format = file.format
        sampleRate = file.sampleRate
        channelCount = file.channelCount
        duration = file.duration
        metadata = file.metadata
        (levels, loudness) = try file.measure(loudness: true)
        byteCount = FileManager.default.sizeOfItem(atPath: url.path) ?? 0
    }

    /// The index entry these facts make for a memo whose identity and state come from elsewhere, with the file's tags
    /// and markers.
    func memo(id: String, title: String, createdAt: Date, fileName: String, state: Memo.State) -> Memo {
        Memo(
            id: id, title: title, createdAt: createdAt, duration: duration, fileName: fileName, format: format,
            sampleRate: sampleRate, channels: channelCount, sizeBytes: byteCount, peakDBFS: levels.peak,
            averageDBFS: levels.average, state: state, loudness: loudness, artist: metadata.artist, album: metadata.album,
            comment: metadata.comment, markers: metadata.markers)
    }
}
