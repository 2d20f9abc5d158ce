import FoundationEssentials
import Glibc
import SystemPackage

extension AudioFileConverter {
    /// Copies the Ogg Opus stream of `source` packet by packet into a new hidden file beside `destination`, with
    /// `metadata` in its comment header, synced to the disk, to be placed as
    /// ``stage(contentsOf:beside:settings:metadata:speechEnhancement:permissions:)``'s are: Opus to Opus without a second encoding, so
    /// that the copy decodes to exactly the source's samples. A stream cut short is copied up to its last whole
    /// packet and ended there.
    ///
    /// - Parameters:
    ///   - source: The file to copy.
    ///   - destination: Where the copy is to go; the hidden file is made beside it.
    ///   - metadata: The title and date for the copy; `nil` keeps the source's comments.
    ///   - permissions: Mode bits of the new file.
    /// - Returns: The staged copy, or `nil` when `source` is no single Ogg Opus stream that can be copied (another
    ///   format, several chained streams, damage before its end): it is to be decoded and encoded again then.
    /// - Throws: ``AudioFileError`` when `source` cannot be read or the copy cannot be written.
    package static func stageOpusCopy(
        of source: URL, beside destination: URL, metadata: AudioMetadata?,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile? {
        let input: FileDescriptor
        do {
            input = try FileDescriptor.open(source.path, .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch {
            throw AudioFileError(path: source.path, opening: error as? Errno ?? .ioError)
        }
        defer { try? input.close() }
        guard let status = try? input.stat(), AudioFile.kindIfNotRegular(status.type) == nil else { return nil }
        guard OggPageReader.beginsWithPage(input) else { return nil }

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
        // Held while it is written, as AudioFileWriter holds its file: a store cleaning up after killed processes
        // leaves it alone.
        _ = flock(output.rawValue, LOCK_EX | LOCK_NB)
        do {
            defer { try? output.close() }
            _ = try OpusStreamCopy(source: input, destination: output).copy(metadata: metadata)
            try DurableFile.sync(output)
        } catch is OpusStreamCopy.NotCopyable {
            DurableFile.removeQuietly(temporary.path)
            return nil
        } catch let error as Errno {
            DurableFile.removeQuietly(temporary.path)
            throw AudioFileError(path: destination.path, reason: .writeFailed(error.description))
        } catch {
            DurableFile.removeQuietly(temporary.path)
            throw AudioFileError(path: destination.path, reason: .writeFailed("\(error)"))
        }
        let staged: StagedAudioFile
        do {
            staged = try StagedAudioFile(url: temporary)
        } catch {
            DurableFile.removeQuietly(temporary.path)
            throw AudioFileError(path: destination.path, creating: error)
        }
        // Read back as any reader will: what it holds, and its levels and waveform, decoded.
        let copy = try AudioFile(forReading: temporary)
        let measured = try copy.measure()
        staged.summary = AudioFileSummary(
            frameCount: copy.frameCount, sampleRate: copy.sampleRate, channelCount: copy.channelCount,
            levels: measured.levels, waveform: measured.waveform, byteCount: copy.byteCount)
        return staged
    }
}
