import FoundationEssentials
import Glibc
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
        if let status = try? FilePath(destination.path).stat(), let kind = AudioFile.kindIfNotRegular(status.type) {
            throw AudioFileError(path: destination.path, reason: .notAFileToReplace(kind))
        }
        let temporary = temporaryURL(beside: destination)
        let output: FileDescriptor
        do {
            output = try FileDescriptor.open(
                temporary.path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: permissions)
        } catch {
            throw AudioFileError(path: destination.path, creating: error as? Errno ?? .ioError)
        }
        // Held while FFmpeg writes it, as AudioFileWriter holds its file: a store cleaning up after killed processes
        // leaves it alone.
        _ = flock(output.rawValue, LOCK_EX | LOCK_NB)
        do {
            defer { try? output.close() }
            let copied = try M4ACopy.copy(from: source.path, to: temporary.path, metadata: metadata, frameCount: nil)
            guard copied.isWhole else { throw AudioFileError(path: source.path, reason: .malformed("its last packet is cut short")) }
            try DurableFile.sync(output)
        } catch let error as AudioFileError where error.path == temporary.path {
            DurableFile.removeQuietly(temporary.path)
            throw AudioFileError(path: destination.path, reason: error.reason)
        } catch {
            DurableFile.removeQuietly(temporary.path)
            throw error
        }
        let staged: StagedAudioFile
        do {
            staged = try StagedAudioFile(url: temporary)
        } catch {
            DurableFile.removeQuietly(temporary.path)
            throw AudioFileError(path: destination.path, creating: error)
        }
        // Read back as any reader will: what it holds, and its levels, decoded.
        let copy = try AudioFile(forReading: temporary)
        let measured = try copy.measure(loudness: measuringLoudness)
        staged.summary = AudioFileSummary(
            frameCount: copy.frameCount, sampleRate: copy.sampleRate, channelCount: copy.channelCount,
            levels: measured.levels, byteCount: copy.byteCount, loudness: measured.loudness)
        return staged
    }
}
