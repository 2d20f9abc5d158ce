import CSndFile
import FoundationEssentials
import Glibc
import SystemPackage

/// Writes a WAV, CAF or Ogg/Opus file from interleaved 32-bit float frames, as ``AudioSettings`` say.
///
/// WAV and CAF headers are rewritten after every ``write(_:)``, so a process killed mid-recording leaves
/// a file that reads back with every frame that reached the disk. Opus is written page by page, which
/// leaves a stream that plays up to its last complete page. Samples outside −1…1 are clipped, not wrapped.
///
/// The file is locked (`flock(2)`, exclusive) while it is open for writing.
///
/// Call ``close()`` when done: it finishes the file, syncs it to the disk and reports a failure of that
/// last write. A writer released without `close()` still finishes the file, but cannot report failures.
///
/// **Not thread-safe**: one thread (the recorder's writer thread, or a converter) writes at a time.
public final class AudioFileWriter {
    /// Where the file is written.
    public let url: URL
    /// How it is written.
    public let settings: AudioSettings
    /// Frames written so far.
    public private(set) var frameCount: Int64 = 0

    private let file: SndFile
    private let descriptor: FileDescriptor
    private var isClosed = false

    /// Creates (or truncates) the file at `url` and prepares it for writing.
    ///
    /// - Parameters:
    ///   - url: The file to write; an existing file there is replaced.
    ///   - settings: Format, rate, channels and bit depth or bit rate; validated here.
    ///   - metadata: Title and creation date, stored in the container's own fields.
    ///   - permissions: Mode bits for a new file (the process umask applies); recordings use `0o600`.
    /// - Throws: ``AudioSettingsError`` when `settings` cannot be written, ``AudioFileError`` when the file
    ///   cannot be created.
    public init(
        url: URL, settings: AudioSettings, metadata: AudioMetadata = AudioMetadata(),
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws {
        try settings.validate()
        let path = url.path
        do {
            descriptor = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: permissions)
        } catch {
            throw AudioFileError(path: path, reason: .writeFailed("\(error)"))
        }
        // Held until the descriptor closes: whoever finds the file (a store cleaning up after a killed
        // process) can tell one being written from one left behind.
        _ = flock(descriptor.rawValue, LOCK_EX | LOCK_NB)
        var info = SF_INFO()
        info.samplerate = Int32(settings.sampleRate)
        info.channels = Int32(settings.channelCount)
        info.format = Self.formatCode(settings)
        do {
            file = try SndFile(descriptor: descriptor, mode: .write(info), closesDescriptor: false)
            file.command(Int32(SFC_SET_CLIPPING), int: Int32(SF_TRUE))
            if let title = metadata.title { try file.setString(Int32(SF_STR_TITLE), title) }
            if let date = metadata.creationDate {
                try file.setString(Int32(SF_STR_DATE), AudioMetadata.dateText(date))
            }
            try file.setString(Int32(SF_STR_SOFTWARE), "voicememo")
            if settings.format == .opus {
                try file.command(Int32(SFC_SET_COMPRESSION_LEVEL), double: Self.compressionLevel(settings))
            } else {
                file.command(Int32(SFC_SET_UPDATE_HEADER_AUTO), int: Int32(SF_TRUE))
            }
        } catch {
            try? descriptor.close()
            DurableFile.removeQuietly(path)
            throw AudioFileError(path: path, reason: .writeFailed("\(error)"))
        }
        self.url = url
        self.settings = settings
    }

    deinit {
        if !isClosed {
            try? file.close()
            try? descriptor.close()
        }
    }

    /// Appends interleaved frames (count a multiple of the channel count, samples in −1…1).
    ///
    /// - Throws: ``AudioFileError`` with ``AudioFileError/Reason/writeFailed(_:)`` when not all of them could
    ///   be written (disk full, I/O error). What was written before stays readable.
    public func write(_ frames: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        try writeSamples(frames)
    }

    /// Appends interleaved left-justified 32-bit integer frames: the lossless path for PCM to PCM.
    func write(_ frames: UnsafeBufferPointer<Int32>) throws(AudioFileError) {
        try writeSamples(frames)
    }

    private func writeSamples<Sample: SndFileSample>(_ frames: UnsafeBufferPointer<Sample>) throws(AudioFileError) {
        do {
            try file.write(frames)
            frameCount += Int64(frames.count / settings.channelCount)
        } catch {
            throw AudioFileError(path: url.path, reason: .writeFailed(error.message))
        }
    }

    /// Finishes the file (final header or Ogg page), syncs it to the disk and closes it. Calling it again
    /// does nothing.
    ///
    /// - Throws: ``AudioFileError`` when the last write or the sync fails.
    public func close() throws(AudioFileError) {
        guard !isClosed else { return }
        isClosed = true
        defer { try? descriptor.close() }
        do {
            try file.close()
            try DurableFile.sync(descriptor)
        } catch {
            throw AudioFileError(path: url.path, reason: .writeFailed("\(error)"))
        }
    }

    private static func formatCode(_ settings: AudioSettings) -> Int32 {
        let container = switch settings.format {
        case .caf: SF_FORMAT_CAF
        case .opus: SF_FORMAT_OGG
        default: SF_FORMAT_WAV
        }
        let codec = switch (settings.format, settings.effectiveBitDepth) {
        case (.opus, _): SF_FORMAT_OPUS
        case (_, .int16): SF_FORMAT_PCM_16
        case (_, .int24): SF_FORMAT_PCM_24
        case (_, .float32): SF_FORMAT_FLOAT
        }
        return Int32(container | codec)
    }

    /// libsndfile sets the Opus bit rate through a compression level, 0 (best) … 1, mapped linearly to
    /// 256 000 … 6 000 b/s per channel (`ogg_opus.c`); this inverts that map for the wanted rate.
    private static func compressionLevel(_ settings: AudioSettings) -> Double {
        let perChannel = Double(settings.effectiveBitRate) / Double(settings.channelCount)
        // The half bit keeps libsndfile's truncation to an integer from landing one below the target.
        let level = 1 - (perChannel + 0.5 - 6000) / 250_000
        return min(max(level, 0), 1)
    }
}
