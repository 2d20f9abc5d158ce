import FoundationEssentials
import SystemEdge
import SystemPackage

/// What a conversion, a recording (``AudioRecorder/summary``) or an offline render wrote.
public struct AudioFileSummary: Equatable, Sendable {
    /// Frames written.
    public var frameCount: Int64
    /// Frames per second of the written file, in hertz.
    public var sampleRate: Double
    /// Channels of the written file.
    public var channelCount: Int
    /// Peak and average level of everything written, per channel, in dBFS (before Opus encoding).
    public var levels: AudioLevels
    /// The outline of everything written (before Opus encoding), at ``Waveform/standardSamplesPerPixel``, or at the
    /// power-of-two multiple of it that keeps it within ``Waveform/keptLength`` pixels.
    public var waveform: Waveform
    /// Size of the written file in bytes.
    public var byteCount: Int64
    /// Loudness of everything written (before Opus encoding), when it was measured: always for a recording
    /// (``AudioRecorder/summary``), else `nil`.
    public var loudness: AudioLoudness? = nil
    /// Samples that came as NaN or ±infinity (a device gone wrong), for a recording (``AudioRecorder/summary``); 0
    /// otherwise. The levels, waveform and loudness take them as silence, and so does the file unless it is 32-bit
    /// float PCM, which keeps them as they came (``AudioFileWriter/holdsNonFiniteSamples``).
    public var nonFiniteSampleCount: Int64 = 0

    /// Length in seconds.
    public var duration: TimeInterval { Double(frameCount) / sampleRate }
}

/// Converts an audio file into any format ``AudioFileWriter`` writes (WAV, CAF, Opus, FLAC, Vorbis, MP3, AIFF) through
/// libsndfile, resampling with libsoxr and mapping channels (mono ↔ any, more to stereo) as the target settings need.
///
/// PCM or FLAC to PCM or FLAC at the same rate and channel count, with no loss of bit depth, copies the samples as
/// integers: a 16-bit WAV converted to 16-bit WAV, CAF, AIFF or FLAC is bit-exact. The target appears atomically:
/// the data goes to a hidden temporary file beside it, is synced, and is renamed into place, so the
/// destination is never half-written and a failure leaves whatever was there before.
public enum AudioFileConverter {
    /// Frames handled per step: large enough to amortise the calls, small enough to keep memory flat.
    static let blockFrames = 16384

    /// Converts the audio file at `source` into `destination`, as `settings` say.
    ///
    /// - Parameters:
    ///   - source: Any file ``AudioFile`` reads.
    ///   - destination: The file to create or replace.
    ///   - settings: The target format; its sample rate and channel count are what the file gets.
    ///   - metadata: Tags and markers for the new file (the markers in frames of the source's rate); `nil` keeps the
    ///     source's. Markers move with the rate: a marker at 1 s stays at 1 s in a file resampled.
    ///   - speechEnhancement: How to clean up the speech on the way (see ``SpeechEnhancement``); `nil` leaves the
    ///     samples as they are. Mono and stereo targets only.
    ///   - permissions: Mode bits of the new file; recordings and the memo store use `0o600`.
    ///   - replacingExisting: Whether a file already at `destination` is replaced; when false, it is kept and
    ///     the conversion fails with ``AudioFileError/Reason/exists`` (also should one appear meanwhile).
    /// - Returns: The frame count, format, levels and waveform of what was written.
    /// - Throws: ``AudioSettingsError`` for settings that cannot be written, ``AudioFileError`` when the
    ///   source cannot be read (including a source with no audio) or the destination cannot be written, or speech
    ///   enhancement asked for more than two channels.
    public static func convert(
        contentsOf source: URL, to destination: URL, settings: AudioSettings, metadata: AudioMetadata? = nil,
        speechEnhancement: SpeechEnhancement? = nil,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead], replacingExisting: Bool = true
    ) throws -> AudioFileSummary {
        try refuseExisting(destination, unless: replacingExisting)
        let staged = try stage(
            contentsOf: source, beside: destination, settings: settings, metadata: metadata, speechEnhancement: speechEnhancement,
            permissions: permissions)
        return try staged.place(at: destination, replacingExisting: replacingExisting)
    }

    /// Fails with ``AudioFileError/Reason/exists`` when a file is at `destination` and it is not to be replaced.
    package static func refuseExisting(_ destination: URL, unless replacingExisting: Bool) throws(AudioFileError) {
        if let status = try? FilePath(destination.path).stat(), !replacingExisting, AudioFile.kindIfNotRegular(status.type) == nil {
            throw AudioFileError(path: destination.path, reason: .exists)
        }
    }

    /// Converts the audio file at `source` into a new hidden file beside `destination`, synced to the disk, and
    /// returns it to be placed (or dropped, when it is released unplaced). Until then it is held locked, so that a
    /// memo store cleaning up after killed processes leaves it alone. A `gain` other than 0 dB scales the samples.
    package static func stage(
        contentsOf source: URL, beside destination: URL, settings: AudioSettings, metadata: AudioMetadata? = nil,
        gain: Double = 0, speechEnhancement: SpeechEnhancement? = nil,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile {
        try settings.validate()
        return try stage(
            reading: try openLinks(of: source), of: source, beside: destination, settings: settings, metadata: metadata,
            gain: gain, speechEnhancement: speechEnhancement, permissions: permissions)
    }

    /// Converts `inputs`, the audio of `source` as ``openLinks(of:)`` opened it, one after another, from where each is
    /// positioned, as ``stage(contentsOf:beside:settings:metadata:gain:speechEnhancement:permissions:)`` does;
    /// `metadata` nil takes the first's. With `measuringLoudness`, the summary has the loudness of what was written,
    /// measured on the way. `progress`, when given, is called on the way with the fraction written (0 to 1).
    package static func stage(
        reading inputs: [AudioFile], of source: URL, beside destination: URL, settings: AudioSettings, metadata: AudioMetadata? = nil,
        gain: Double = 0, speechEnhancement: SpeechEnhancement? = nil,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead], measuringLoudness: Bool = false,
        progress: ((Double) -> Void)? = nil
    ) throws -> StagedAudioFile {
        try settings.validate()
        guard inputs.contains(where: { $0.frameCount > 0 }) else { throw AudioFileError(path: source.path, reason: .noAudio) }
        let channelMaps = try inputs.map { input in
            guard let map = ChannelMap(from: input.channelCount, to: settings.channelCount) else {
                throw AudioFileError(path: source.path, reason: .unsupported(
                    "\(input.channelCount) channels cannot be mapped to \(settings.channelCount); ask for \(input.channelCount > 2 ? "1, 2" : "1") or \(input.channelCount) channels"))
            }
            return map
        }
        // The Opus header's "original rate" stays the encoded rate: libsndfile decodes at that rate, so
        // the file reads back at the rate it was written with.
        let frames = inputs.reduce(Int64(0)) { $0 + Int64((Double($1.frameCount) * settings.sampleRate / $1.sampleRate).rounded(.up)) }
        let enhancer: SpeechEnhancer?
        do {
            enhancer = try speechEnhancement.map { enhancement throws(SpeechEnhancer.Refusal) in
                try SpeechEnhancer(sampleRate: settings.sampleRate, channelCount: settings.channelCount, settings: enhancement)
            }
        } catch {
            throw AudioFileError(path: destination.path, reason: .unsupported(error.description))
        }
        var metadata = metadata ?? inputs[0].metadata
        metadata.markers = metadata.markers.map { $0.resampled(from: inputs[0].sampleRate, to: settings.sampleRate) }
        return try stage(
            beside: destination, settings: settings, metadata: metadata, permissions: permissions,
            expectedFrameCount: frames, measuringLoudness: measuringLoudness
        ) { output, meter in
            if let progress, frames > 0 { meter.onProgress = { progress(min(1, Double($0) / Double(frames))) } }
            for (input, channelMap) in zip(inputs, channelMaps) {
                if gain == 0, enhancer == nil, canCopyIntegers(from: input, to: settings, channelMap) {
                    try copyIntegers(from: input, to: output, meter: &meter)
                } else {
                    try convertFloats(
                        from: input, to: output, channelMap: channelMap, gain: Float(AudioLevels.amplitude(gain)), enhancer: enhancer,
                        meter: &meter)
                }
            }
            try enhancer?.finish { frames in
                meter.add(frames)
                try output.write(frames)
            }
        }
    }

    /// Copies `frames` of the WAV, CAF, Opus or M4A file at `source` into a new hidden file beside `destination`, in its
    /// own format and settings, without encoding anything again, to be placed as
    /// ``stage(contentsOf:beside:settings:metadata:gain:speechEnhancement:permissions:)``'s are: PCM samples as they are (integers as
    /// integers, floats as floats), Opus packets as they are (see ``stageOpusExcerpt(of:frames:sampleRate:beside:metadata:permissions:)``),
    /// AAC packets in an MP4 as they are (see ``M4ACopy``).
    /// The excerpt starts and ends on exactly those frames; the summary has its levels and loudness.
    ///
    /// - Parameters:
    ///   - frames: The frames to keep, within the file's ``AudioFile/frameCount`` and not empty.
    ///   - metadata: Tags and markers for the new file (the markers in its frames); `nil` keeps the source's, the
    ///     markers moved back by the cut's start and those outside it dropped.
    /// - Throws: ``AudioFileError`` when `source` cannot be read or is no WAV, CAF or Opus file, nor AAC in an MP4
    ///   (``AudioFileError/Reason/unsupported(_:)``), or the new file cannot be written.
    package static func stageExcerpt(
        of source: URL, frames: Range<Int64>, beside destination: URL, metadata: AudioMetadata? = nil,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile {
        let input = try AudioFile(forReading: source)
        guard !frames.isEmpty, frames.lowerBound >= 0, frames.upperBound <= input.frameCount else {
            throw AudioFileError(path: source.path, reason: .unsupported(
                "frames \(frames.lowerBound) to \(frames.upperBound) are not within its \(input.frameCount)"))
        }
        let metadata = metadata ?? {
            var kept = input.metadata
            kept.markers = kept.markers.compactMap { $0.inExcerpt(frames) }
            return kept
        }()
        if input.format == .opus {
            return try stageOpusExcerpt(
                of: source, frames: frames, sampleRate: input.sampleRate, beside: destination,
                metadata: metadata, permissions: permissions)
        }
        if input.isAACInMP4 {
            return try stageM4A(
                of: source, frames: frames, beside: destination, metadata: metadata, measuringLoudness: true, permissions: permissions)
        }
        let settings = AudioSettings(preserving: input)
        guard settings.format == input.format, [.wav, .caf, .flac].contains(input.format) else {
            throw AudioFileError(path: source.path, reason: .unsupported(
                "only WAV, CAF, FLAC and Opus files and AAC in MP4 are cut without encoding them again, not \(input.format.rawValue)"))
        }
        try input.seek(toFrame: frames.lowerBound)
        return try stage(
            beside: destination, settings: settings, metadata: metadata, permissions: permissions,
            expectedFrameCount: Int64(frames.count), measuringLoudness: true
        ) { output, meter in
            if canCopyIntegers(from: input, to: settings, .identity) {
                try copyIntegers(from: input, to: output, frameLimit: Int64(frames.count), meter: &meter)
            } else {
                try convertFloats(from: input, to: output, channelMap: .identity, frameLimit: Int64(frames.count), meter: &meter)
            }
        }
    }

    /// The audio of `source` opened for reading: the file, or for a chained Ogg file (`cat a.opus b.opus`, which
    /// libsndfile reads the first link of) each of its links, in order, every one a whole stream read on its own.
    ///
    /// - Throws: ``AudioFileError`` when the file or a link cannot be read.
    package static func openLinks(of source: URL) throws -> [AudioFile] {
        guard let descriptor = try? FileDescriptor.open(source.path, .readOnly, options: [.closeOnExec, .nonBlocking]),
              let status = try? descriptor.stat(), AudioFile.kindIfNotRegular(status.type) == nil
        else { return [try AudioFile(forReading: source)] }
        defer { try? descriptor.close() }
        guard OggPageReader.beginsWithPage(descriptor) else { return [try AudioFile(forReading: source)] }
        let links: [AnonymousFile]
        do {
            links = try OggChain.links(of: descriptor)
        } catch let error as Errno {
            throw AudioFileError(path: source.path, reason: .readFailed(error.description))
        } catch let error as OggChain.TooManyLinks {
            throw AudioFileError(path: source.path, reason: .unsupported(
                "it chains \(error.count) streams one after another; voicememo reads up to \(OggChain.maximumLinkCount)"))
        }
        // libsndfile holds a descriptor of its own: the link's file lives as long as its reader.
        return links.isEmpty ? [try AudioFile(forReading: source)] : try links.map { try AudioFile(forReading: $0.url) }
    }

    /// Writes a new hidden file beside `destination` through `write`, which meters what it writes, syncs it to the
    /// disk and returns it to be placed, as ``stage(contentsOf:beside:settings:metadata:gain:speechEnhancement:permissions:)``
    /// does.
    static func stage(
        beside destination: URL, settings: AudioSettings, metadata: AudioMetadata, permissions: FilePermissions,
        expectedFrameCount: Int64?, measuringLoudness: Bool = false, write: (AudioFileWriter, inout AudioMeasurement) throws -> Void
    ) throws -> StagedAudioFile {
        // The new file is renamed over the old: never over a device, a FIFO or a socket (as root, over /dev/null).
        if let status = try? FilePath(destination.path).stat(), let kind = AudioFile.kindIfNotRegular(status.type) {
            throw AudioFileError(path: destination.path, reason: .notAFileToReplace(kind))
        }
        let temporary = temporaryURL(beside: destination)
        do {
            let output = try AudioFileWriter(
                url: temporary, settings: settings, metadata: metadata, permissions: permissions,
                expectedFrameCount: expectedFrameCount)
            var meter = AudioMeasurement(
                channelCount: settings.channelCount, sampleRate: settings.sampleRate, measuringLoudness: measuringLoudness)
            try write(output, &meter)
            try output.close()
            // Locked once the writer has let go of its own lock; just written, it is too new for a store to take for
            // a leftover meanwhile.
            let staged = try StagedAudioFile(url: temporary, for: destination)
            staged.summary = meter.summary(
                frameCount: output.frameCount, byteCount: FileManager.default.sizeOfItem(atPath: temporary.path) ?? 0)
            return staged
        } catch let error as Errno {
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: destination.path, creating: error)
        } catch let error as AudioFileError where error.path == temporary.path {
            // Said of the file asked for, not of the hidden one it was being written as.
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: destination.path, reason: error.reason)
        } catch let error as ResamplerError {
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: destination.path, reason: .writeFailed("resampling failed: \(error)"))
        } catch {
            FileNames.removeIgnoringFailure(temporary.path)
            throw error
        }
    }

    /// A hidden, unique name in the destination's directory, so that the final rename stays on one file system;
    /// within the 255 bytes a name may have, however long the destination's.
    static func temporaryURL(beside destination: URL) -> URL {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let name = destination.lastPathComponent.prefix(utf8Bytes: 200)
        return destination.deletingLastPathComponent().appendingPathComponent(".\(name).\(suffix).partial")
    }

    private static func canCopyIntegers(from input: AudioFile, to settings: AudioSettings, _ map: ChannelMap) -> Bool {
        guard input.isIntegerPCM, let bits = input.bitDepth, settings.format.isPCM || settings.format == .flac, map == .identity,
              input.sampleRate == settings.sampleRate
        else { return false }
        return settings.effectiveBitDepth != .float32 && bits <= settings.effectiveBitDepth.rawValue
    }

    /// Copies up to `frameLimit` frames of `input`, from where it is, as integers.
    private static func copyIntegers(
        from input: AudioFile, to output: AudioFileWriter, frameLimit: Int64 = .max, meter: inout AudioMeasurement
    ) throws {
        let channels = input.channelCount
        var integers = [Int32](repeating: 0, count: blockFrames * channels)
        var floats = [Float](repeating: 0, count: blockFrames * channels)
        var left = frameLimit
        try integers.withUnsafeMutableBufferPointer { integers in
            try floats.withUnsafeMutableBufferPointer { floats in
                while left > 0,
                      case let frames = try input.read(into: UnsafeMutableBufferPointer(rebasing: integers[..<(Int(min(left, Int64(blockFrames))) * channels)])),
                      frames > 0 {
                    left -= Int64(frames)
                    let count = frames * channels
                    // Scaling by a power of two after the one rounding to Float: the same values as dividing
                    // in Double first, and a loop the compiler vectorizes.
                    for index in 0..<count { floats[index] = Float(integers[index]) * 0x1p-31 }
                    meter.add(UnsafeBufferPointer(rebasing: floats[..<count]))
                    try output.write(UnsafeBufferPointer(rebasing: integers[..<count]))
                }
            }
        }
    }

    /// Converts up to `frameLimit` frames of `input`, from where it is, as floats: mapped to the output's channels,
    /// scaled by `gain` (linear), resampled to its rate, cleaned up by `enhancer` when there is one.
    private static func convertFloats(
        from input: AudioFile, to output: AudioFileWriter, channelMap: ChannelMap, gain: Float = 1,
        enhancer: SpeechEnhancer? = nil, frameLimit: Int64 = .max, meter: inout AudioMeasurement
    ) throws {
        let channels = output.settings.channelCount
        let resampler = input.sampleRate == output.settings.sampleRate ? nil : try Resampler(
            inputRate: input.sampleRate, outputRate: output.settings.sampleRate, channelCount: channels)
        var source = [Float](repeating: 0, count: blockFrames * input.channelCount)
        var mapped = [Float](repeating: 0, count: blockFrames * channels)
        var resampled = [Float](repeating: 0, count: blockFrames * channels)

        func store(_ frames: UnsafeBufferPointer<Float>) throws {
            meter.add(frames)
            try output.write(frames)
        }
        func emit(_ frames: UnsafeBufferPointer<Float>) throws {
            guard let enhancer else { return try store(frames) }
            try enhancer.process(frames, store)
        }
        try source.withUnsafeMutableBufferPointer { source in
            try mapped.withUnsafeMutableBufferPointer { mapped in
                try resampled.withUnsafeMutableBufferPointer { resampled in
                    var left = frameLimit
                    while left > 0,
                          case let frames = try input.read(
                            into: UnsafeMutableBufferPointer(rebasing: source[..<(Int(min(left, Int64(blockFrames))) * input.channelCount)])),
                          frames > 0 {
                        left -= Int64(frames)
                        if gain != 1 {
                            for index in 0..<(frames * input.channelCount) { source[index] *= gain }
                        }
                        let read = UnsafeBufferPointer(rebasing: source[..<(frames * input.channelCount)])
                        let block: UnsafeBufferPointer<Float>
                        if channelMap == .identity {
                            block = read
                        } else {
                            channelMap.apply(read, into: mapped)
                            block = UnsafeBufferPointer(rebasing: mapped[..<(frames * channels)])
                        }
                        guard let resampler else { try emit(block); continue }
                        try resampler.processAll(block, through: resampled, emit)
                    }
                    try resampler?.flushAll(through: resampled, emit)
                }
            }
        }
    }
}
