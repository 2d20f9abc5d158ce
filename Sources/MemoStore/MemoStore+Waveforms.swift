import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// Memos' waveforms, kept beside their audio as `.<id>.waveform.dat` (audiowaveform's `.dat` format, 16-bit, at
/// `Waveform.standardSamplesPerPixel` or the power-of-two multiple of it that keeps it within `Waveform.keptLength`
/// points): derived data, measured once from the samples that pass through when a recording ends or a file is
/// imported, and measured again from the audio file when it is missing, damaged, or no longer fits the audio (another
/// length, rate or channel count: a file edited since).
extension MemoStore {
    /// The waveform of `memo`: the one kept beside it, or, when there is none that fits its audio, one measured from
    /// its audio file now (a long memo takes as long as decoding it) and kept for next time when the store can be
    /// changed. With `samplesPerPixel` (a multiple of `Waveform.standardSamplesPerPixel`), at that resolution: the
    /// kept one made coarser, or, when it is coarser already (a long memo), one measured from the audio file.
    ///
    /// - Throws: ``MemoStoreError/recordingInProgress(_:)`` while the memo is being recorded (its file has no end
    ///   yet); `AudioFileError` when its audio file cannot be read.
    public func waveform(of memo: Memo, samplesPerPixel: Int? = nil) throws -> Waveform {
        try memo.requireWhole()
        let kept = try keptWaveform(of: memo) ?? measureAndKeepWaveform(of: memo)
        guard let samplesPerPixel, samplesPerPixel != kept.samplesPerPixel else { return kept }
        if samplesPerPixel % kept.samplesPerPixel == 0 { return kept.zoomedOut(by: samplesPerPixel / kept.samplesPerPixel) }
        return try Waveform(measuring: AudioFile(forReading: fileURL(of: memo)), samplesPerPixel: samplesPerPixel)
    }

    /// Measures `memo`'s waveform from its audio file, as a recording's is measured, and keeps it when the store's lock
    /// is free (as every file the store writes, under it: a writer at work now leaves it to be measured again).
    private func measureAndKeepWaveform(of memo: Memo) throws -> Waveform {
        let waveform = try AudioFile(forReading: fileURL(of: memo)).measure().waveform
        if case .acquired(let lock) = FileLock.attempt(path: lockPath) {
            defer { lock.unlock() }
            keepWaveform(waveform, of: memo.id)
        }
        return waveform
    }

    /// Keeps `waveform` beside the audio of memo `id`, replacing what was kept. A failure keeps nothing: the waveform
    /// is measured again when asked for. Called under the store's lock.
    func keepWaveform(_ waveform: Waveform, of id: String) {
        // Not synced: a file cut short by a power cut does not fit the audio, and is measured again.
        try? DurableFile.write(waveform.datRepresentation(), replacing: waveformPath(of: id), permissions: [.ownerReadWrite], syncing: false)
    }

    /// The waveform kept beside `memo`, when there is one and it fits the memo's audio.
    private func keptWaveform(of memo: Memo) -> Waveform? {
        guard let bytes = try? DurableFile.contents(of: waveformPath(of: memo.id)),
              let waveform = try? Waveform(datRepresentation: bytes)
        else { return nil }
        let frames = Int((memo.duration * memo.sampleRate).rounded())
        let fits = waveform.sampleRate == Int(memo.sampleRate.rounded()) && waveform.channelCount == memo.channels
            && waveform.samplesPerPixel % Waveform.standardSamplesPerPixel == 0
            && (waveform.samplesPerPixel / Waveform.standardSamplesPerPixel).nonzeroBitCount == 1
            && waveform.length == (frames + waveform.samplesPerPixel - 1) / waveform.samplesPerPixel
        return fits ? waveform : nil
    }

    func waveformPath(of id: String) -> String {
        directory.appendingPathComponent(".\(id)\(Self.waveformSuffix)").path
    }

    /// The end of the name of a kept waveform, after `.<id>`.
    static let waveformSuffix = ".waveform.dat"
}

extension MemoStore {
    /// Writes `memo`'s waveform (see ``waveform(of:samplesPerPixel:)``) to `destination` in audiowaveform's `.dat` format, which
    /// peaks.js and audiowaveform read: version 1 for a mono memo, 2 (one outline per channel, as audiowaveform's
    /// `--split-channels`) for more.
    ///
    /// - Parameters:
    ///   - memo: A memo of this store.
    ///   - destination: The file to create, outside the store; it appears whole or not at all.
    ///   - bits: The resolution of the values.
    ///   - samplesPerPixel: Frames per point, a multiple of `Waveform.standardSamplesPerPixel`; `nil` for the kept
    ///     waveform's (see ``waveform(of:samplesPerPixel:)``).
    ///   - replacingExisting: Whether a file at `destination` is replaced; when false (the default) it is kept and
    ///     the write fails with `AudioFileError.Reason.exists`.
    /// - Returns: The waveform written.
    /// - Throws: ``MemoStoreError/exportIntoStore(path:)`` for a destination inside the store, what
    ///   ``waveform(of:samplesPerPixel:)`` throws, `AudioFileError` when the file cannot be written.
    @discardableResult
    public func exportWaveform(
        _ memo: Memo, to destination: URL, bits: Waveform.Resolution = .sixteen, samplesPerPixel: Int? = nil,
        replacingExisting: Bool = false
    ) throws -> Waveform {
        if isInside(destination) { throw MemoStoreError.exportIntoStore(path: destination.path) }
        let waveform = try waveform(of: memo, samplesPerPixel: samplesPerPixel)
        do {
            try DurableFile.write(
                waveform.datRepresentation(bits: bits), replacing: destination.path,
                permissions: [.ownerReadWrite, .groupRead, .otherRead], syncing: true, replacingExisting: replacingExisting)
        } catch {
            throw AudioFileError(path: destination.path, creating: error as? Errno ?? .ioError)
        }
        return waveform
    }
}
