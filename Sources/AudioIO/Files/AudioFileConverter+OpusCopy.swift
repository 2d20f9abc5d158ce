import FoundationEssentials
import SystemEdge
import SystemPackage

extension AudioFileConverter {
    /// Copies the Ogg Opus stream of `source` packet by packet into a new hidden file beside `destination`, with
    /// `metadata` in its comment header, synced to the disk, to be placed as
    /// ``stage(contentsOf:beside:settings:metadata:gain:speechEnhancement:permissions:)``'s are: Opus to Opus without a
    /// second encoding, so
    /// that the copy decodes to exactly the source's samples. A stream cut short is copied up to its last whole
    /// packet and ended there.
    ///
    /// - Parameters:
    ///   - source: The file to copy.
    ///   - destination: Where the copy is to go; the hidden file is made beside it.
    ///   - metadata: The title and date for the copy; `nil` keeps the source's comments.
    ///   - gain: Decibels added to the stream's output gain, which every decoder applies (RFC 7845 §5.1).
    ///   - measuringLoudness: Whether the summary has the copy's loudness, measured as it is read back.
    ///   - readingBack: Whether the copy is decoded for the summary's frames, levels (and loudness); without, the
    ///     summary has its size alone (a new title leaves the rest as it was).
    ///   - permissions: Mode bits of the new file.
    /// - Returns: The staged copy, or `nil` when `source` is no single Ogg Opus stream that can be copied (another
    ///   format, several chained streams, damage before its end): it is to be decoded and encoded again then.
    /// - Throws: ``AudioFileError`` when `source` cannot be read or the copy cannot be written.
    package static func stageOpusCopy(
        of source: URL, beside destination: URL, metadata: AudioMetadata?, gain: Double = 0, measuringLoudness: Bool = false,
        readingBack: Bool = true, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile? {
        let edit = OpusStreamCopy.Edit(metadata: metadata, gain: gain)
        let reading: ReadBack = readingBack ? .decoding(measuringLoudness: measuringLoudness) : .sizeOnly
        switch try stageOpusEdit(edit, of: source, beside: destination, reading: reading, permissions: permissions) {
        case .staged(let staged): return staged
        case .notCopyable: return nil
        }
    }

    /// Copies the Ogg Opus stream of `source` as ``stageOpusCopy(of:beside:metadata:gain:measuringLoudness:permissions:)``
    /// does, keeping only `frames` of it (in the file's frames, at its rate; 48 kHz samples each when it is 48 kHz):
    /// whole packets, the pre-skip and the last granule position cut to the sample. The summary has the loudness of
    /// what is kept.
    ///
    /// - Throws: ``AudioFileError`` when `source` cannot be read, is no single whole Ogg Opus stream
    ///   (``AudioFileError/Reason/unsupported(_:)``, saying why), or the copy cannot be written.
    package static func stageOpusExcerpt(
        of source: URL, frames: Range<Int64>, sampleRate: Double, beside destination: URL, metadata: AudioMetadata?,
        permissions: FilePermissions
    ) throws -> StagedAudioFile {
        // Opus counts in 48 kHz samples whatever rate it was made from; the rates it takes divide 48 kHz.
        let factor = Int64((48000 / sampleRate).rounded())
        let edit = OpusStreamCopy.Edit(metadata: metadata, samples: (frames.lowerBound * factor)..<(frames.upperBound * factor))
        switch try stageOpusEdit(edit, of: source, beside: destination, reading: .decoding(measuringLoudness: true), permissions: permissions) {
        case .staged(let staged): return staged
        case .notCopyable(let why): throw AudioFileError(path: source.path, reason: .unsupported("its Opus stream cannot be cut without encoding it again: \(why)"))
        }
    }

    private enum OpusEditOutcome {
        case staged(StagedAudioFile)
        case notCopyable(String)
    }

    /// What the summary of a staged copy has.
    private enum ReadBack {
        /// Its frames and levels, and its loudness when asked: the copy decoded.
        case decoding(measuringLoudness: Bool)
        /// Its size alone.
        case sizeOnly
    }

    private static func stageOpusEdit(
        _ edit: OpusStreamCopy.Edit, of source: URL, beside destination: URL, reading: ReadBack, permissions: FilePermissions
    ) throws -> OpusEditOutcome {
        let input: FileDescriptor
        do {
            input = try FileDescriptor.open(source.path, .readOnly, options: [.closeOnExec, .nonBlocking])
        } catch {
            throw AudioFileError(path: source.path, opening: error as? Errno ?? .ioError)
        }
        defer { try? input.close() }
        guard let status = try? input.stat(), AudioFile.kindIfNotRegular(status.type) == nil else {
            return .notCopyable("it is not a regular file")
        }
        guard OggPageReader.beginsWithPage(input) else { return .notCopyable("it is not an Ogg stream") }

        let (temporary, output) = try openLockedTemporary(beside: destination, permissions: permissions)
        do {
            defer { output.unlockAndClose() }
            _ = try OpusStreamCopy(source: input, destination: output).copy(edit)
            try output.sync()
        } catch let error as OpusStreamCopy.NotCopyable {
            FileNames.removeIgnoringFailure(temporary.path)
            return .notCopyable(error.description)
        } catch let error as Errno {
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: destination.path, reason: .writeFailed(error.description))
        } catch {
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: destination.path, reason: .writeFailed("\(error)"))
        }
        let staged = try stageWritten(temporary, for: destination)
        switch reading {
        case .decoding(let measuringLoudness):
            // Read back as any reader will: what it holds, and its levels and waveform, decoded.
            let copy = try AudioFile(forReading: temporary)
            let measured = try copy.measure(loudness: measuringLoudness)
            staged.summary = AudioFileSummary(
                frameCount: copy.frameCount, sampleRate: copy.sampleRate, channelCount: copy.channelCount,
                levels: measured.levels, waveform: measured.waveform, byteCount: copy.byteCount, loudness: measured.loudness)
        case .sizeOnly:
            staged.summary.byteCount = FileManager.default.sizeOfItem(atPath: temporary.path) ?? 0
        }
        return .staged(staged)
    }
}
