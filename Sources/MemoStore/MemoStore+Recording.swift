import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

extension MemoStore {
    /// Lists a new memo in state ``Memo/State/recording`` for a recording about to start in this process.
    ///
    /// Under the store's lock, it picks the id, takes an exclusive `flock` on the lock file
    /// `.<id>.recording` (0600) and only then lists the memo, so that no other process can see the entry
    /// without the lock being held. Other processes list the memo as `recording` for as long as the
    /// returned ticket lives, and refuse to rename or delete it. When the lock is found free (the
    /// recording process died, or released the ticket without finishing), the memo becomes
    /// ``Memo/State/recovered`` with the duration, levels and size of the audio that reached the disk,
    /// or is dropped from the index when none did (the file, if any, is kept).
    ///
    /// - Parameters:
    ///   - title: The memo's title: any text; it never becomes part of a path.
    ///   - settings: How the recorder writes the file (WAV, CAF, Opus or AAC); validated here. The file is
    ///     `<id>.<extension>` (`.m4a` for AAC).
    ///   - artist: Who is heard, or who made it, if anyone.
    ///   - album: What it belongs to, if anything.
    ///   - comment: Free text about it, if any.
    /// - Returns: The ticket saying where to record; hand it to ``finishRecording(_:summary:markers:)``.
    /// - Throws: `AudioSettingsError` for settings that cannot be written, ``MemoStoreError`` for the
    ///   store.
    public func beginRecording(
        title: String, settings: AudioSettings, artist: String? = nil, album: String? = nil, comment: String? = nil
    ) throws -> RecordingTicket {
        try settings.validate()
        guard Memo.storedFormats.contains(settings.format) else { throw MemoStoreError.unstoredFormat(settings.format) }
        // Whole seconds: what the file's metadata keeps.
        let createdAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var lockPath: String?
        do {
            return try update { index throws(MemoStoreError) in
                let id = Memo.newID(unlike: index.memos)
                lockPath = recordingLockPath(of: id)
                let lock = try FileLock(path: recordingLockPath(of: id), storePath: directory.path)
                markOwnRecording(at: recordingLockPath(of: id))
                let silence = Array(repeating: AudioLevels.floor, count: settings.channelCount)
                let memo = Memo(
                    id: id, title: title, createdAt: createdAt, duration: 0, fileName: Memo.fileName(id: id, format: settings.format),
                    format: settings.format, sampleRate: settings.sampleRate, channels: settings.channelCount,
                    sizeBytes: 0, peakDBFS: silence, averageDBFS: silence, state: .recording, artist: artist, album: album,
                    comment: comment)
                try keepTitle(title, of: id, fileTitle: Self.storedTitle(title))
                index.append(memo)
                return RecordingTicket(memo: memo, fileURL: fileURL(of: memo), settings: settings, lock: lock)
            }
        } catch {
            // The index was not saved, and the ticket that was never returned has released the lock.
            if let lockPath { FileNames.removeIgnoringFailure(lockPath) }
            throw error
        }
    }

    /// Keeps `markers`, the markers of the recording of `ticket` so far (`AudioRecorder.markers`), with its memo while it
    /// records: in the index and beside its file, so that a recording whose process dies keeps them when it is
    /// recovered.
    ///
    /// - Throws: ``MemoStoreError`` when the index cannot be read or written.
    public func noteMarkers(_ markers: [AudioMarker], of ticket: RecordingTicket) throws(MemoStoreError) {
        try update { index throws(MemoStoreError) in
            guard var memo = index.memos.first(where: { $0.id == ticket.memo.id }) else { return }
            memo.markers = markers
            try keepMarkers(markers, of: memo.id, fileHoldsThem: false)
            index.put(memo)
        }
    }

    /// Marks the memo of `ticket` ``Memo/State/complete`` with what was recorded, keeps its waveform beside it (see
    /// ``waveform(of:samplesPerPixel:)``), and releases the recording lock.
    ///
    /// Call it after the file is closed. The lock is released even when this throws; the memo is then
    /// recovered from its file on the next read of the store.
    ///
    /// - Parameters:
    ///   - ticket: What ``beginRecording(title:settings:artist:album:comment:)`` returned.
    ///   - summary: What was written: frames, rate, channels, levels (dBFS per channel), waveform, file size and
    ///     loudness.
    ///   - markers: The recording's markers (`AudioRecorder.markers`), in frames of the file's rate.
    /// - Returns: The finished memo.
    /// - Throws: ``MemoStoreError`` when the index cannot be read or written.
    @discardableResult
    public func finishRecording(
        _ ticket: RecordingTicket, summary: AudioFileSummary, markers: [AudioMarker] = []
    ) throws(MemoStoreError) -> Memo {
        defer { ticket.release() }
        return try update { index throws(MemoStoreError) in
            var memo = index.memos.first { $0.id == ticket.memo.id } ?? ticket.memo
            memo.state = .complete
            memo.markers = markers
            try keepMarkers(markers, of: memo.id, fileHoldsThem: memo.format.keepsMarkers)
            memo.duration = summary.duration
            memo.sampleRate = summary.sampleRate
            memo.channels = summary.channelCount
            memo.sizeBytes = summary.byteCount
            memo.peakDBFS = summary.levels.peak
            memo.averageDBFS = summary.levels.average
            memo.loudness = summary.loudness
            memo.nonFiniteSampleCount = summary.nonFiniteSampleCount
            keepWaveform(summary.waveform, of: memo.id)
            index.put(memo)
            // Still locked by the ticket: nobody can take this file for an ended recording meanwhile.
            FileNames.removeIgnoringFailure(recordingLockPath(of: memo.id))
            return memo
        }
    }

    /// What the lock file of a memo says of its recording.
    enum RecordingStatus {
        /// There is no lock file: the memo is not a recording.
        case none
        /// A process holds the lock: it is recording now.
        case live
        /// The lock was free: the recording ended without being finished. Its lock file is gone now.
        case ended
        /// Another machine sharing the store made the lock and has finished the recording since (a change of the memo
        /// from it is here): its file is a finished memo's. The copy of its lock is gone now.
        case finishedElsewhere
    }

    /// What the lock file of memo `id` says of its recording. When the store may be changed (the caller holds its
    /// lock), an ended recording's lock file is removed, so that its state is settled once and for all.
    func recordingStatus(of id: String, access: Access = .changing) -> RecordingStatus {
        let path = recordingLockPath(of: id)
        switch FileLock.attempt(path: path) {
        case .missing, .unavailable:
            return .none
        case .held:
            return .live
        case .acquired(let lock):
            defer { lock.unlock() }
            // A lock a sync tool brought from another machine is that machine's recording, whose file arrives as it is
            // written: it is never recovered here, only by that machine, and it is live until that machine's change
            // for it comes (a change is written only once a recording is finished or recovered).
            if let owner = recordingOwner(at: path), owner != (try? local.machineID()) {
                guard hasChange(of: id, from: owner) else { return .live }
                if access == .changing { FileNames.removeIgnoringFailure(path) }
                return .finishedElsewhere
            }
            if access == .changing { FileNames.removeIgnoringFailure(path) }
            return .ended
        }
    }

    /// Writes this machine's id into the recording lock at `path`, which this process holds: another machine that gets
    /// a copy of it knows whose recording it is.
    private func markOwnRecording(at path: String) {
        guard let machine = try? local.machineID(),
              let descriptor = try? FileDescriptor.open(path, .writeOnly, options: [.noFollow, .closeOnExec])
        else { return }
        _ = try? descriptor.closeAfter { try descriptor.writeAll(Array((machine + "\n").utf8)) }
    }

    /// The machine whose id the recording lock at `path` holds, if any.
    func recordingOwner(at path: String) -> String? {
        guard let bytes = try? DurableFile.contents(of: path),
              let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first,
              MemoEditRecord.isMachineID(text)
        else { return nil }
        return String(text)
    }

    /// Whether a change of memo `id` made by `machine` is in the store.
    private func hasChange(of id: String, from machine: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directoryPath)) ?? []
        return names.contains { MemoEditRecord.parse(fileName: $0).map { $0.id == id && $0.stamp.machine == machine } ?? false }
    }

    private func recordingLockPath(of id: String) -> String {
        directory.appendingPathComponent(".\(id).recording").path
    }
}
