import CFFmpeg
import FoundationEssentials

/// Writes interleaved float frames as AAC-LC into an M4A file, through FFmpeg's own `aac` encoder and its MP4 muxer, so
/// that a process killed mid-write leaves a file that can be made whole.
///
/// While it is written the file is a fragmented MP4: a header with the tags (title, date, artist, ...) and an index
/// without samples, then fragments of at most ``fragmentDuration`` of audio, each a `moof` and its `mdat`, handed to
/// the file system as they are cut. A file cut short is readable up to its last whole fragment, and
/// ``AudioFile/repairCutRecording(at:)`` copies what is readable into a whole M4A. ``finish(frameCount:metadata:)`` does
/// the same with every packet: the file becomes a plain M4A (its index after the audio, as players expect), exactly
/// `frameCount` frames long, with the markers as chapters, in one rename.
///
/// **Not thread-safe**: one thread (the recording's writer) at a time.
final class M4AEncoder {
    /// The most audio one fragment holds, in seconds: what a process killed mid-recording loses at most, besides what
    /// had not reached the writer. Each fragment costs about 100 bytes of `moof`, gone once the file is finished.
    static let fragmentDuration = 0.5

    let path: String
    private let encoder: FFmpegAACEncoder
    private let output: FFmpegOutput
    private let fragmentFrames: Int
    /// Frames encoded since the last fragment was cut.
    private var sinceFragment = 0

    /// Creates (or replaces) the file at `path` and writes its header with `metadata`'s tags.
    ///
    /// - Throws: ``FFmpegError`` when FFmpeg cannot be loaded, the encoder opened or the file written.
    init(path: String, settings: AudioSettings, metadata: AudioMetadata) throws(FFmpegError) {
        try FFmpegLibrary.load()
        self.path = path
        let rate = Int(settings.sampleRate)
        let encoder = try FFmpegAACEncoder(
            sampleRate: rate, channelCount: settings.channelCount, bitRate: settings.effectiveBitRate, globalHeader: true)
        self.encoder = encoder
        output = try FFmpegOutput(
            path: path, container: M4ACopy.container, tags: M4ACopy.tags(metadata), chapters: [], sampleRate: rate,
            timeBase: AVRational(num: 1, den: Int32(rate)), layout: .fragmented
        ) { stream throws(FFmpegError) in try encoder.describe(stream) }
        fragmentFrames = Int(Self.fragmentDuration * settings.sampleRate)
    }

    /// Encodes interleaved `samples`, cutting a fragment each ``fragmentDuration``.
    func write(_ samples: UnsafeBufferPointer<Float>) throws(FFmpegError) {
        try encoder.encode(samples) { packet throws(FFmpegError) in try output.write(packet) }
        sinceFragment += samples.count / encoder.channelCount
        if sinceFragment >= fragmentFrames { try flush() }
    }

    /// Cuts a fragment of what has been encoded, and hands it to the file system.
    func flush() throws(FFmpegError) {
        try output.flushFragment()
        sinceFragment = 0
    }

    /// Encodes what the encoder holds, finishes the fragmented file, then puts in its place a plain M4A of its packets,
    /// `frameCount` frames long, with `metadata`'s tags and its markers as chapters.
    ///
    /// - Throws: ``AudioFileError`` with `writeFailed` when encoding or writing fails.
    func finish(frameCount: Int64, metadata: AudioMetadata) throws {
        do {
            try encoder.finish { packet throws(FFmpegError) in try output.write(packet) }
            try output.finish()
        } catch {
            throw AudioFileError(path: path, reason: .writeFailed("FFmpeg: \(error.message)"))
        }
        try FileRewrite.replace(URL(fileURLWithPath: path)) { temporary in
            let copied = try M4ACopy.copy(from: path, to: temporary.path, metadata: metadata, frames: 0..<frameCount)
            guard copied.isWhole, copied.frameCount == frameCount else {
                throw AudioFileError(path: path, reason: .writeFailed(
                    "its \(frameCount) frames read back as \(copied.frameCount)\(copied.isWhole ? "" : ", cut short")"))
            }
        }
    }
}
