import FoundationEssentials
import SystemEdge
import SystemPackage

extension AudioFileConverter {
    /// Copies the AAC packets of the MP4 file `source` (M4A, MP4, MOV) into a new hidden M4A file beside `destination`,
    /// with `metadata`'s tags and markers, synced to the disk, to be placed as
    /// ``stage(contentsOf:beside:settings:metadata:gain:permissions:)``'s are: AAC to AAC without a second encoding, so that the
    /// copy decodes to exactly the source's samples (see ``M4ACopy``).
    ///
    /// - Parameters:
    ///   - source: The file to copy.
    ///   - destination: Where the copy is to go; the hidden file is made beside it.
    ///   - metadata: The tags and markers for the copy; `nil` keeps the source's.
    ///   - measuringLoudness: Whether the summary has the copy's loudness, measured as it is read back.
    ///   - permissions: Mode bits of the new file.
    /// - Returns: The staged copy, or `nil` when `source` is no AAC in an MP4 or MOV (it is to be decoded and encoded
    ///   again then).
    /// - Throws: ``AudioFileError`` when `source` cannot be read or the copy cannot be written.
    package static func stageM4ACopy(
        of source: URL, beside destination: URL, metadata: AudioMetadata?, measuringLoudness: Bool = false,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile? {
        guard try AudioFile(forReading: source).isAACInMP4 else { return nil }
        return try stageM4A(of: source, frames: nil, beside: destination, metadata: metadata, measuringLoudness: measuringLoudness, permissions: permissions)
    }

    /// Copies the AAC packets of the MP4 file `source` (``AudioFile/isAACInMP4``) as
    /// ``stageM4ACopy(of:beside:metadata:measuringLoudness:permissions:)`` does, all of them or only `frames`: whole
    /// packets then, from the one before the first frame's (on which the decoder settles), with an edit list that cuts
    /// them to the frame (see ``M4ACopy``).
    ///
    /// - Throws: ``AudioFileError`` when `source` cannot be read or the copy cannot be written.
    static func stageM4A(
        of source: URL, frames: Range<Int64>?, beside destination: URL, metadata: AudioMetadata?, measuringLoudness: Bool,
        permissions: FilePermissions
    ) throws -> StagedAudioFile {
        let (temporary, output) = try openLockedTemporary(beside: destination, permissions: permissions)
        do {
            defer { output.unlockAndClose() }
            let copied = try M4ACopy.copy(from: source.path, to: temporary.path, metadata: metadata, frames: frames)
            guard copied.isWhole else { throw AudioFileError(path: source.path, reason: .malformed("its last packet is cut short")) }
            if let frames, copied.frameCount != frames.count {
                throw AudioFileError(path: source.path, reason: .malformed(
                    "it ends after \(frames.lowerBound + copied.frameCount) of the \(frames.upperBound) frames to keep"))
            }
            try output.sync()
        } catch let error as AudioFileError where error.path == temporary.path {
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: destination.path, reason: error.reason)
        } catch {
            FileNames.removeIgnoringFailure(temporary.path)
            throw error
        }
        let staged = try stageWritten(temporary, for: destination)
        // Read back as any reader will: what it holds, and its levels and waveform, decoded.
        let copy = try AudioFile(forReading: temporary)
        let measured = try copy.measure(loudness: measuringLoudness)
        staged.summary = AudioFileSummary(
            frameCount: copy.frameCount, sampleRate: copy.sampleRate, channelCount: copy.channelCount,
            levels: measured.levels, waveform: measured.waveform, byteCount: copy.byteCount, loudness: measured.loudness)
        return staged
    }
}
