import CSndFile
import FoundationEssentials
import SystemEdge
import SystemPackage

/// Writes a WAV, CAF, Ogg/Opus, FLAC, Ogg/Vorbis, MP3, AIFF or M4A (AAC-LC) file from interleaved 32-bit float frames,
/// as ``AudioSettings`` say.
///
/// Vorbis is written at quality 3 (oggenc's default, about 112 kb/s for stereo at 44.1 kHz), MP3 as variable bit
/// rate at LAME's `-V 2` (about 190 kb/s for stereo), FLAC at libFLAC's default compression (level 5), all through
/// libsndfile; AAC through FFmpeg's own `aac` encoder and MP4 muxer, at the settings' bit rate. The tags go into the
/// container's own fields (see ``AudioMetadata``), and the ``markers`` too where it has a place for them, written when
/// the file is closed: WAV cue points with labels, appended; Opus `CHAPTERnnn` comments, its packets copied with them;
/// MP4 chapters; FLAC and Vorbis `CHAPTERnnn` comments and MP3 ID3 chapters, its packets copied by FFmpeg with them
/// (which then writes the comment as Vorbis' `DESCRIPTION` or an ID3 `TXXX` frame, where libsndfile does not read it,
/// and ``AudioFile`` does).
///
/// WAV and CAF headers are rewritten after every ``write(_:)``, so a process killed mid-recording leaves
/// a file that reads back with every frame that reached the disk. A WAV file whose length is not known in
/// advance (a recording) is written as RF64 that stays plain WAV (RIFF) below 4 GiB and becomes RF64 past it,
/// where a RIFF header's 32-bit sizes would wrap. Opus is written in Ogg pages of at most 250 ms of audio,
/// so that a process killed mid-recording leaves a stream missing at most that much (its torn last page is
/// dropped when the memo store recovers it). M4A is written as fragmented MP4, a fragment each half second, and made a
/// plain M4A by ``close()`` (see ``AudioFile/repairCutRecording(at:)`` for one cut short). Samples outside −1…1 are
/// clipped, not wrapped, and NaN and ±infinity are 0, except in 32-bit float PCM (``holdsNonFiniteSamples``).
///
/// The file is locked (`flock(2)`, exclusive) while it is open for writing; one that another process holds locked is
/// not written.
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
    /// The tags written into the file (its markers aside: see ``markers``).
    public let metadata: AudioMetadata
    /// Frames written so far.
    public private(set) var frameCount: Int64 = 0
    /// The markers written when the file is closed, in frames of ``settings``' rate: those of the metadata it was made
    /// with, and any added since (a recording's). Kept where the format has a place for them (see ``AudioMetadata``).
    public var markers: [AudioMarker]
    /// For Opus and Vorbis of 3 to 8 channels: the order libsndfile is to be given the channels in.
    private let opusOrder: OpusChannelOrder?
    /// Where frames are put into ``opusOrder``, or made finite for a format that cannot hold NaN or infinity; grown to
    /// the largest write, then reused.
    private var prepared: [Float] = []
    /// Whether the file is 16-bit PCM (WAV, CAF, AIFF), whose samples are converted here (``SixteenBitPCM``) rather
    /// than by libsndfile.
    private let isSixteenBitPCM: Bool
    /// Where 16-bit PCM samples are converted into; grown to the largest write, then reused.
    private var sixteenBit: [Int16] = []

    private let encoder: Encoder
    private let descriptor: FileDescriptor
    private var isClosed = false

    /// The library that encodes the file.
    private enum Encoder {
        /// libsndfile, writing through a duplicate of the writer's descriptor, which it closes.
        case libsndfile(SndFile)
        /// FFmpeg, writing M4A.
        case ffmpeg(M4AEncoder)
    }

    /// The longest stretch of an Opus recording that is held back before it is written out, in milliseconds: the
    /// duration of an Ogg page at most (libsndfile's own default is a second).
    static let opusPageDuration = 250.0

    /// The largest size of a plain WAV (RIFF) file's data: its sizes are 32-bit.
    static let riffLimit: Int64 = 0xFFFF_FFFF - 1024

    /// Creates (or empties) the file at `url` and prepares it for writing.
    ///
    /// - Parameters:
    ///   - url: The file to write; an existing file there is replaced.
    ///   - settings: Format, rate, channels and bit depth or bit rate; validated here.
    ///   - metadata: Title and creation date, stored in the container's own fields (the title cut to
    ///     ``AudioMetadata/maximumStoredTitleBytes``).
    ///   - permissions: Mode bits for a new file (the process umask applies); recordings use `0o600`.
    ///   - expectedFrameCount: How many frames will be written, when that is known: a WAV file that will fit in
    ///     4 GiB is then written as plain WAV from the start. `nil` (a recording) writes WAV that becomes RF64
    ///     should it pass 4 GiB.
    /// - Throws: ``AudioSettingsError`` when `settings` cannot be written, ``MissingLibraryError`` for M4A when
    ///   FFmpeg is not installed, ``AudioFileError`` when the file cannot be created, or another process is writing
    ///   it (``AudioFileError/Reason/inUse``: it is left as it is).
    public init(
        url: URL, settings: AudioSettings, metadata: AudioMetadata = AudioMetadata(),
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead], expectedFrameCount: Int64? = nil
    ) throws {
        try settings.validate()
        // Said before the file is touched, and not as a failed write: nothing about the disk needs changing.
        if settings.format == .aac { try FFmpegLibrary.require(for: "M4A") }
        let path = url.path
        do {
            descriptor = try FileDescriptor.open(path, .readWrite, options: [.create, .closeOnExec], permissions: permissions)
        } catch {
            throw AudioFileError(path: path, creating: error as? Errno ?? .ioError)
        }
        // Locked before it is emptied (a regular file: as `O_TRUNC` leaves a device alone), so that a file another
        // process writes is left as it is.
        do {
            try descriptor.lockForWriting(path: path)
            if try descriptor.stat().type == .regular { try descriptor.resize(to: 0) }
        } catch {
            descriptor.unlockAndClose()
            throw error as? AudioFileError ?? AudioFileError(path: path, creating: error as? Errno ?? .ioError)
        }
        let stored = metadata.stored
        do {
            if settings.format == .aac {
                encoder = .ffmpeg(try M4AEncoder(path: path, settings: settings, metadata: stored))
            } else {
                encoder = .libsndfile(try Self.openSndFile(
                    on: descriptor, settings: settings, metadata: stored, expectedFrameCount: expectedFrameCount))
            }
        } catch {
            descriptor.unlockAndClose()
            FileNames.removeIgnoringFailure(path)
            throw Self.writeFailure(error, path: path)
        }
        self.url = url
        self.settings = settings
        self.metadata = stored
        markers = metadata.markers
        opusOrder = settings.format == .opus || settings.format == .vorbis ? OpusChannelOrder(channelCount: settings.channelCount) : nil
        isSixteenBitPCM = [.wav, .caf, .aiff].contains(settings.format) && settings.effectiveBitDepth == .int16
    }

    /// libsndfile writing `settings` on a duplicate of `descriptor`, its own to close, with `metadata`'s tags:
    /// `descriptor` stays open for the markers, the sync and the lock, whether libsndfile opens or fails.
    private static func openSndFile(
        on descriptor: FileDescriptor, settings: AudioSettings, metadata: AudioMetadata, expectedFrameCount: Int64?
    ) throws -> SndFile {
        var info = SF_INFO()
        info.samplerate = Int32(settings.sampleRate)
        info.channels = Int32(settings.channelCount)
        let bytesPerFrame = Int64(settings.channelCount * settings.effectiveBitDepth.rawValue / 8)
        let mayPassRIFFLimit = expectedFrameCount.map { $0 > Self.riffLimit / bytesPerFrame } ?? true
        info.format = Self.formatCode(settings, mayPassRIFFLimit: mayPassRIFFLimit)
        let file = try SndFile(descriptor: descriptor.duplicateClosingOnExec(), mode: .write(info))
        file.command(Int32(SFC_SET_CLIPPING), int: Int32(SF_TRUE))
        // RIFF headers while the data fits, RF64 from the write that passes 4 GiB on.
        if settings.format == .wav, mayPassRIFFLimit { file.command(Int32(SFC_RF64_AUTO_DOWNGRADE), int: Int32(SF_TRUE)) }
        for (key, value) in Self.strings(metadata, format: settings.format) { try file.setString(key, value) }
        try Self.configureEncoder(of: file, for: settings)
        return file
    }

    /// libsndfile's strings for `metadata` in `format`: AIFF has no date field, and its annotation is the one free text
    /// it has (the comment, else the date).
    private static func strings(_ metadata: AudioMetadata, format: AudioFileFormat) -> [(Int32, String)] {
        var strings: [(Int32, String)] = []
        if let title = metadata.title { strings.append((Int32(SF_STR_TITLE), title)) }
        if let artist = metadata.artist { strings.append((Int32(SF_STR_ARTIST), artist)) }
        if let album = metadata.album, format != .aiff { strings.append((Int32(SF_STR_ALBUM), album)) }
        if let comment = metadata.comment { strings.append((Int32(SF_STR_COMMENT), comment)) }
        if let date = metadata.creationDate {
            if format != .aiff {
                strings.append((Int32(SF_STR_DATE), AudioMetadata.dateText(date)))
            } else if metadata.comment == nil {
                strings.append((Int32(SF_STR_COMMENT), AudioMetadata.dateText(date)))
            }
        }
        strings.append((Int32(SF_STR_SOFTWARE), "voicememo"))
        return strings
    }

    deinit {
        if !isClosed {
            switch encoder {
            case .libsndfile(let file): try? file.close()
            case .ffmpeg(let m4a): try? m4a.finish(frameCount: frameCount, metadata: metadataWithMarkers)
            }
            descriptor.unlockAndClose()
        }
    }

    /// Appends interleaved frames (count a multiple of the channel count, samples in −1…1; NaN and ±infinity as
    /// ``holdsNonFiniteSamples`` says).
    ///
    /// - Throws: ``AudioFileError`` with ``AudioFileError/Reason/writeFailed(_:)`` when not all of them could
    ///   be written (disk full, I/O error). What was written before stays readable.
    public func write(_ frames: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        if isSixteenBitPCM {
            // Clipped and made finite on the way, as libsndfile would: no pass to look for what needs it.
            if sixteenBit.count < frames.count { sixteenBit = Array(repeating: 0, count: frames.count) }
            return try sixteenBit.withUnsafeMutableBufferPointer { samples throws(AudioFileError) in
                SixteenBitPCM.convert(frames, into: samples)
                try writeSamples(UnsafeBufferPointer(rebasing: samples[..<frames.count]))
            }
        }
        let clipping = !holdsNonFiniteSamples && !frames.allSatisfy { $0.magnitude <= 1 }
        guard opusOrder != nil || clipping else { return try writeSamples(frames) }
        prepared.removeAll(keepingCapacity: true)
        prepared.append(contentsOf: frames)
        try prepared.withUnsafeMutableBufferPointer { samples throws(AudioFileError) in
            if clipping {
                for index in samples.indices { samples[index] = min(max(NonFiniteSamples.finite(samples[index]), -1), 1) }
            }
            opusOrder?.wavToVorbis(samples)
            try writeSamples(UnsafeBufferPointer(samples))
        }
    }

    /// Whether the file keeps NaN, ±infinity and samples past full scale as they are written: 32-bit float PCM (WAV,
    /// CAF, AIFF) does. Every other format gets NaN and infinity as 0 (silence), and the rest clipped: an encoder fed
    /// them fails (FFmpeg's AAC refuses a frame that is not finite) or spreads them (Opus), and integer PCM has no
    /// such values.
    public var holdsNonFiniteSamples: Bool {
        settings.bitDepth == .float32 && settings.format != .flac
    }

    /// Appends interleaved left-justified 32-bit integer frames: the lossless path for PCM to PCM.
    func write(_ frames: UnsafeBufferPointer<Int32>) throws(AudioFileError) {
        try writeSamples(frames)
    }

    private func writeSamples<Sample: SndFileSample>(_ frames: UnsafeBufferPointer<Sample>) throws(AudioFileError) {
        switch encoder {
        case .libsndfile(let file):
            do {
                try file.write(frames)
            } catch {
                throw Self.writeFailure(error, path: url.path)
            }
        case .ffmpeg(let m4a):
            guard let floats = frames as? UnsafeBufferPointer<Float> else {
                preconditionFailure("integer samples are written to libsndfile's PCM only")
            }
            do {
                try m4a.write(floats)
            } catch {
                throw Self.writeFailure(error, path: url.path)
            }
        }
        frameCount += Int64(frames.count / settings.channelCount)
    }

    /// The error for `error`, a failure to write the file at `path`: a full disk by its name, whichever library
    /// met it.
    private static func writeFailure(_ error: any Error, path: String) -> AudioFileError {
        switch error {
        case let error as SndFileError where error.isNoSpace: AudioFileError(path: path, reason: .noSpace)
        case let error as FFmpegError where error.code == -Errno.noSpace.rawValue: AudioFileError(path: path, reason: .noSpace)
        case let error as FFmpegError: AudioFileError(path: path, reason: .writeFailed("FFmpeg: \(error.message)"))
        case Errno.noSpace: AudioFileError(path: path, reason: .noSpace)
        default: AudioFileError(path: path, reason: .writeFailed("\(error)"))
        }
    }

    /// Waits until everything written so far is on the disk, so that a power cut cannot take it.
    ///
    /// - Throws: ``AudioFileError`` when the disk reports a failure.
    public func synchronize() throws(AudioFileError) {
        do {
            if case .ffmpeg(let m4a) = encoder { try m4a.flush() }
            try descriptor.sync()
        } catch {
            throw Self.writeFailure(error, path: url.path)
        }
    }

    /// Finishes the file (final header or Ogg page, the markers, an M4A's index), syncs it to the disk and closes it.
    /// Calling it again does nothing.
    ///
    /// - Throws: ``AudioFileError`` when the last write or the sync fails.
    public func close() throws(AudioFileError) {
        guard !isClosed else { return }
        isClosed = true
        defer { descriptor.unlockAndClose() }
        do {
            switch encoder {
            case .libsndfile(let file):
                try file.close()
                try writeMarkers()
            case .ffmpeg(let m4a):
                try m4a.finish(frameCount: frameCount, metadata: metadataWithMarkers)
            }
            try descriptor.sync()
        } catch let error as AudioFileError {
            throw error
        } catch {
            throw Self.writeFailure(error, path: url.path)
        }
    }

    /// ``metadata`` with ``markers``.
    private var metadataWithMarkers: AudioMetadata {
        var metadata = metadata
        metadata.markers = markers
        return metadata
    }

    /// Puts ``markers`` into the file libsndfile has finished: a WAV file's cue points, appended; an Opus file's
    /// comments, by copying its stream with them (its packets as they are); a FLAC, Vorbis or MP3 file's comments or ID3
    /// chapters, by FFmpeg copying its packets (see ``ChapterCopy``).
    private func writeMarkers() throws {
        guard !markers.isEmpty else { return }
        switch settings.format {
        case .wav:
            try WAVCueChunks.append(markers, to: descriptor)
        case .opus:
            let metadata = metadataWithMarkers
            try FileRewrite.replace(url) { temporary in
                let copy = try FileDescriptor.open(temporary.path, .writeOnly, options: [.truncate, .closeOnExec])
                defer { try? copy.close() }
                _ = try OpusStreamCopy(source: descriptor, destination: copy).copy(OpusStreamCopy.Edit(metadata: metadata))
            }
        case .flac, .vorbis, .mp3:
            let metadata = metadataWithMarkers
            try FileRewrite.replace(url) { temporary in
                try ChapterCopy.copy(from: url.path, to: temporary.path, format: settings.format, metadata: metadata, frameCount: frameCount)
            }
        default:
            break
        }
    }

    private static func formatCode(_ settings: AudioSettings, mayPassRIFFLimit: Bool) -> Int32 {
        let container = switch settings.format {
        case .caf: SF_FORMAT_CAF
        case .opus, .vorbis: SF_FORMAT_OGG
        case .flac: SF_FORMAT_FLAC
        case .mp3: SF_FORMAT_MPEG
        case .aiff: SF_FORMAT_AIFF
        default: mayPassRIFFLimit ? SF_FORMAT_RF64 : SF_FORMAT_WAV
        }
        let codec = switch (settings.format, settings.effectiveBitDepth) {
        case (.opus, _): SF_FORMAT_OPUS
        case (.vorbis, _): SF_FORMAT_VORBIS
        case (.mp3, _): SF_FORMAT_MPEG_LAYER_III
        case (_, .int16): SF_FORMAT_PCM_16
        case (_, .int24): SF_FORMAT_PCM_24
        case (_, .float32): SF_FORMAT_FLOAT
        }
        return Int32(container | codec)
    }

    /// Sets what the codec needs before the first write: the Opus bit rate and page length, the Vorbis and MP3
    /// quality, or for PCM headers rewritten after every write.
    private static func configureEncoder(of file: SndFile, for settings: AudioSettings) throws(SndFileError) {
        switch settings.format {
        case .opus:
            guard file.command(Int32(SFC_SET_COMPRESSION_LEVEL), double: compressionLevel(settings)) else { throw file.lastError }
            file.command(Int32(SFC_SET_OGG_PAGE_LATENCY_MS), double: opusPageDuration)
        case .vorbis:
            // libsndfile's Vorbis quality is 1 − the level: 0.3, oggenc's default `-q 3`.
            guard file.command(Int32(SFC_SET_COMPRESSION_LEVEL), double: 0.7) else { throw file.lastError }
        case .mp3:
            // In variable bit rate mode libsndfile hands LAME 10 × the level as its VBR quality: `-V 2`. The level
            // first: setting the mode re-applies it, and fails while it is unset.
            guard file.command(Int32(SFC_SET_COMPRESSION_LEVEL), double: 0.2),
                  file.command(Int32(SFC_SET_BITRATE_MODE), pointee: Int32(SF_BITRATE_MODE_VARIABLE))
            else { throw file.lastError }
        case .flac:
            break
        default:
            file.command(Int32(SFC_SET_UPDATE_HEADER_AUTO), int: Int32(SF_TRUE))
        }
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
