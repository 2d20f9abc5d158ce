import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// Edits of a memo that lose nothing: the version before goes to the store's trash (``MemoTrash``), from which
/// ``MemoStore/restore(_:)`` and ``MemoStore/undo()`` bring it back; so does a memo deleted, or renamed.
///
/// An edit happens under the store's lock, with `.<id>.edit` beside the memo's file while it runs: its new file is
/// made beside the memo's first (before the lock is taken), then the old one is kept in the trash (a second link to
/// it), the new one renamed over it, and the index saved; every step synced before the next. A process killed at any
/// point leaves the memo's file whole, old or new; the next process to take the lock finds `.<id>.edit`, reads the
/// memo's facts from its file (length, levels, loudness, size) and drops what the edit had kept of a version it never
/// replaced. The waveform kept beside the memo follows its audio: the trash keeps the version's, a trim keeps the
/// cut's, a restore puts the version's back; one left behind by a kill does not fit the audio, and is measured again.
extension MemoStore {
    /// Cuts `memo` to the part from `start` to `end` seconds, without encoding anything again, and keeps the memo as it
    /// was in the trash.
    ///
    /// WAV and CAF are cut to the sample, their samples copied as they are. Opus is cut to the sample too, its audio
    /// packets kept byte for byte: whole packets before the start (as many as the pre-skip can hold, so that the
    /// decoder has settled by the cut) and after the end are dropped, the stream's pre-skip and last granule position
    /// drop the rest (RFC 7845), and libogg pages it anew. M4A is cut to the sample too, its AAC packets kept byte for
    /// byte: from the one before the packet holding the start (an AAC frame overlaps the one before it) to the one
    /// holding the end, and the MP4 edit list skips what they hold before the start and ends at the end. The memo
    /// keeps its id, title, date, artist, album and comment; its length, size, levels and loudness become the cut's,
    /// and its markers move with the audio (back by the start; those before it or past the end are dropped), in its
    /// file and in the index.
    ///
    /// Times are rounded to the nearest frame. A memo being recorded is not cut.
    ///
    /// - Parameters:
    ///   - memo: A memo of this store.
    ///   - start: Seconds from the memo's start where the cut begins; `nil` for its start.
    ///   - end: Seconds from the memo's start where the cut ends; `nil` for its end.
    /// - Returns: The memo after the cut.
    /// - Throws: ``MemoStoreError/invalidCut(title:reason:)`` for a cut outside the memo, empty, or keeping all of it;
    ///   ``MemoStoreError/recordingInProgress(_:)``, ``MemoStoreError/noMatch(_:)``,
    ///   ``MemoStoreError/changedDuringEdit(title:)``, ``MemoStoreError/editFailed(path:reason:)``; `AudioFileError`
    ///   when its file cannot be read or the cut written. The memo is as it was when this throws.
    @discardableResult
    public func trim(_ memo: Memo, start: Double? = nil, end: Double? = nil) throws -> Memo {
        try requireChangeable()
        guard let current = try memos().first(where: { $0.id == memo.id }) else { throw MemoStoreError.noMatch(memo.id) }
        try current.requireWhole()
        let file = fileURL(of: current)
        let identity = MemoIndexCache.Identity(path: file.path)
        let input = try AudioFile(forReading: file)
        let frames = try Self.frames(from: start, to: end, of: input, title: current.title)
        let edit = MemoEdit.trim(start: Double(frames.lowerBound) / input.sampleRate, end: Double(frames.upperBound) / input.sampleRate)
        var metadata = current.metadata
        metadata.markers = edit.markersAfter(current.markers, sampleRate: input.sampleRate)
        let staged = try AudioFileConverter.stageExcerpt(
            of: file, frames: frames, beside: file, metadata: metadata, permissions: [.ownerReadWrite])
        return try editing(current, unchangedSince: identity) { before throws(MemoStoreError) in
            _ = try MemoTrash(store: directory).keep(before, file: file.path, waveform: waveformPath(of: before.id), before: edit)
            do {
                try staged.place(at: file, replacingExisting: true)
            } catch {
                throw .editFailed(path: file.path, reason: "\(error)")
            }
            var after = before
            let summary = staged.summary
            after.duration = summary.duration
            after.sizeBytes = summary.byteCount
            after.peakDBFS = summary.levels.peak
            after.averageDBFS = summary.levels.average
            after.loudness = summary.loudness
            after.markers = metadata.markers
            try keepMarkers(after.markers, of: after.id, fileHoldsThem: after.format.keepsMarkers)
            // Measured as the cut was written; the memo's as it was stays in the trash with its audio.
            keepWaveform(summary.waveform, of: after.id)
            return after
        }
    }

    /// The frames of `file` from `start` to `end` seconds (`nil`: its start, its end), checked.
    private static func frames(from start: Double?, to end: Double?, of file: AudioFile, title: String) throws(MemoStoreError) -> Range<Int64> {
        let duration = "\((file.duration * 1000).rounded() / 1000)"
        let first = Int64(((start ?? 0) * file.sampleRate).rounded())
        let last = end.map { Int64(($0 * file.sampleRate).rounded()) } ?? file.frameCount
        guard first >= 0, (start ?? 0).isFinite, (end ?? 0).isFinite else {
            throw .invalidCut(title: title, reason: "times count from its start, 0 s, to its end, \(duration) s")
        }
        guard last <= file.frameCount else {
            throw .invalidCut(title: title, reason: "it ends at \(duration) s; give an end within it")
        }
        guard first < last else {
            throw .invalidCut(title: title, reason: "the start must come before the end (it is \(duration) s long)")
        }
        guard first > 0 || last < file.frameCount else {
            throw .invalidCut(title: title, reason: "that keeps all of it; give --start or --end within its \(duration) s")
        }
        return first..<last
    }

    /// How many days the trash keeps a version of a memo, an edit's or a delete's, as Apple's Voice Memos keeps what is
    /// deleted in "Recently Deleted": older ones go the next time the store is used.
    public static let trashDays = 30

    /// Brings back the version of `memo` before its last edit, from the trash: its audio replaces the memo's file, and
    /// its length, levels, loudness and markers come back with it; the memo keeps its current title, but for a rename
    /// undone, which brings the old one back. The version after the edit is dropped (the edit can be made again). Under
    /// the store's lock, as safe against a kill as an edit.
    ///
    /// - Returns: The memo restored, and the version it was.
    /// - Throws: ``MemoStoreError/nothingToRestore(title:)`` when the trash has no version of it,
    ///   ``MemoStoreError/recordingInProgress(_:)``, ``MemoStoreError/noMatch(_:)``,
    ///   ``MemoStoreError/editFailed(path:reason:)``.
    @discardableResult
    public func restore(_ memo: Memo) throws(MemoStoreError) -> (memo: Memo, version: TrashedVersion) {
        try requireChangeable()
        return try restoring { index throws(MemoStoreError) in
            guard let current = index.memos.first(where: { $0.id == memo.id }) else { throw .noMatch(memo.id) }
            let trash = MemoTrash(store: directory)
            trash.cleanUp(id: current.id, memoFile: filePath(of: current))
            guard let version = trash.versions().last(where: { $0.memo.id == current.id }) else {
                throw .nothingToRestore(title: current.title)
            }
            return version
        }
    }

    /// Restores the memo `reference` names: a memo of the store, as ``restore(_:)`` does, or else a memo deleted, from
    /// the trash, as it was when it was deleted (its title, date, markers and waveform with it); `reference` is its id,
    /// a unique prefix of one or its title, as ``memo(matching:)`` takes them.
    ///
    /// - Returns: The memo restored, and the version it was.
    /// - Throws: What ``memo(matching:)`` and ``restore(_:)`` throw.
    @discardableResult
    public func restore(matching reference: String) throws(MemoStoreError) -> (memo: Memo, version: TrashedVersion) {
        let listed: Memo
        do {
            listed = try Self.memo(matching: reference, in: memos())
        } catch {
            // Not in the store: a memo deleted, in the trash.
            guard case .noMatch = error else { throw error }
            let deleted = try Self.memo(matching: reference, in: deletedVersions().map(\.memo))
            try requireChangeable()
            return try restoring { index throws(MemoStoreError) in
                guard !index.memos.contains(where: { $0.id == deleted.id }),
                      let version = deletedVersions().first(where: { $0.memo.id == deleted.id })
                else { throw .noMatch(reference) }
                return version
            }
        }
        return try restore(listed)
    }

    /// The memos in the trash because they were deleted: the last version of each, the one its delete kept.
    private func deletedVersions() -> [TrashedVersion] {
        var last: [String: TrashedVersion] = [:]
        for version in MemoTrash(store: directory).versions() { last[version.memo.id] = version }
        return last.values.filter { $0.edit == .delete }.sorted { $0.number > $1.number }
    }

    /// Undoes the last edit made in the store (a trim, a rename, a delete), whichever memo it was of, as
    /// ``restore(_:)`` does for that memo; a memo deleted comes back to the store.
    ///
    /// - Returns: The memo restored, and the version it was.
    /// - Throws: ``MemoStoreError/nothingToUndo`` when the trash is empty, and what ``restore(_:)`` throws.
    @discardableResult
    public func undo() throws(MemoStoreError) -> (memo: Memo, version: TrashedVersion) {
        try requireChangeable()
        return try restoring { index throws(MemoStoreError) in
            let listed = Set(index.memos.map(\.id))
            // A memo in the store has its edits undone; one deleted, its delete (its earlier versions wait for it).
            guard let version = MemoTrash(store: directory).versions().last(where: { listed.contains($0.memo.id) != ($0.edit == .delete) }) else {
                throw .nothingToUndo
            }
            return version
        }
    }

    /// Restores the version `choose` picks from the trash, under the store's lock.
    private func restoring(
        _ choose: (MemoIndex) throws(MemoStoreError) -> TrashedVersion
    ) throws(MemoStoreError) -> (memo: Memo, version: TrashedVersion) {
        let lock = try FileLock(path: lockPath, storePath: directory.path)
        defer { lock.unlock() }
        var chosen: TrashedVersion?
        let memo = try reconcileAndSave(entering: nil) { index throws(MemoStoreError) -> Memo in
            let version = try choose(index)
            chosen = version
            guard let position = index.memos.firstIndex(where: { $0.id == version.memo.id }) else {
                return try bringBack(version, into: &index)
            }
            let current = index.memos[position]
            try current.requireWhole()
            try markEdit(of: current.id)
            let file = filePath(of: version.memo)
            do throws(Errno) {
                try FileNames.rename(version.path, to: file)
                try DurableFile.syncDirectory(containing: file)
            } catch {
                removeEditMark(of: current.id)
                throw .editFailed(path: file, reason: error.description)
            }
            if current.fileName != version.memo.fileName { FileNames.removeIgnoringFailure(filePath(of: current)) }
            MemoTrash(store: directory).restoreWaveform(of: version, to: waveformPath(of: current.id))
            MemoTrash(store: directory).removeRecord(of: version)
            var restored = version.memo
            if version.edit != .rename { restored.title = current.title }
            restored.state = .complete
            let fileTitle = (try? AudioFile(forReading: URL(filePath: file, directoryHint: .notDirectory)))?.metadata.title
            try keepTitle(restored.title, of: restored.id, fileTitle: fileTitle)
            try keepMarkers(restored.markers, of: restored.id, fileHoldsThem: restored.format.keepsMarkers)
            index.replace(at: position, with: restored)
            return restored
        }
        removeEditMark(of: memo.id)
        return (memo, chosen!)
    }

    /// Puts `version`, a memo deleted, back in the store and in `index`, under the store's lock: its title and markers
    /// kept beside it first, then its audio moved back from the trash in one step (a rename), then its waveform, and its
    /// record removed. A process killed before the index is saved leaves the audio in the store, which the next
    /// reconciliation adopts with the title and markers kept beside it.
    func bringBack(_ version: TrashedVersion, into index: inout MemoIndex) throws(MemoStoreError) -> Memo {
        guard version.edit == .delete else { throw .noMatch(version.memo.id) }
        let file = filePath(of: version.memo)
        let fileTitle = (try? AudioFile(forReading: URL(filePath: version.path, directoryHint: .notDirectory)))?.metadata.title
        try keepTitle(version.memo.title, of: version.memo.id, fileTitle: fileTitle)
        try keepMarkers(version.memo.markers, of: version.memo.id, fileHoldsThem: version.memo.format.keepsMarkers)
        do throws(Errno) {
            try DurableFile.place(version.path, at: file)
            try DurableFile.syncDirectory(containing: file)
        } catch {
            throw .editFailed(path: file, reason: error.description)
        }
        let trash = MemoTrash(store: directory)
        trash.restoreWaveform(of: version, to: waveformPath(of: version.memo.id))
        trash.removeRecord(of: version)
        var restored = version.memo
        restored.state = .complete
        index.append(restored)
        return restored
    }

    /// Runs `body`, the edit of `memo` whose file had `identity` when the edit began, under the store's lock, with the
    /// edit's mark beside the memo's file until the index is saved; `body` returns the memo after the edit, which the
    /// index takes.
    private func editing(
        _ memo: Memo, unchangedSince identity: MemoIndexCache.Identity?, _ body: (Memo) throws(MemoStoreError) -> Memo
    ) throws(MemoStoreError) -> Memo {
        let lock = try FileLock(path: lockPath, storePath: directory.path)
        defer { lock.unlock() }
        let edited = try reconcileAndSave(entering: nil) { index throws(MemoStoreError) -> Memo in
            guard let position = index.memos.firstIndex(where: { $0.id == memo.id }) else { throw .noMatch(memo.id) }
            let before = index.memos[position]
            try before.requireWhole()
            guard before.fileName == memo.fileName, identity != nil, MemoIndexCache.Identity(path: filePath(of: before)) == identity else {
                throw .changedDuringEdit(title: before.title)
            }
            try markEdit(of: before.id)
            let after: Memo
            do throws(MemoStoreError) {
                after = try body(before)
            } catch {
                // Nothing was replaced: what the edit kept in the trash is the memo's file itself, and goes.
                MemoTrash(store: directory).cleanUp(id: before.id, memoFile: filePath(of: before))
                removeEditMark(of: before.id)
                throw error
            }
            index.replace(at: position, with: after)
            return after
        }
        removeEditMark(of: memo.id)
        return edited
    }

    /// The versions the trash keeps, oldest first.
    public func trashedVersions() -> [TrashedVersion] {
        MemoTrash(store: directory).versions()
    }

    /// Removes every version from the trash, for good; returns how many bytes that freed. Under the store's lock.
    ///
    /// - Throws: ``MemoStoreError`` when the store cannot be changed.
    @discardableResult
    public func emptyTrash() throws(MemoStoreError) -> Int64 {
        let lock = try FileLock(path: lockPath, storePath: directory.path)
        defer { lock.unlock() }
        return MemoTrash(store: directory).empty()
    }

    // MARK: The mark of an edit under way

    private func editMarkPath(of id: String) -> String {
        directory.appendingPathComponent(".\(id).edit").path
    }

    /// Leaves `.<id>.edit` beside the memo's file, synced, before an edit changes anything.
    func markEdit(of id: String) throws(MemoStoreError) {
        let path = editMarkPath(of: id)
        do {
            let descriptor = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate, .noFollow, .closeOnExec], permissions: [.ownerReadWrite])
            try descriptor.close()
            try DurableFile.syncDirectory(containing: path)
        } catch {
            throw .editFailed(path: path, reason: "\(error)")
        }
    }

    func removeEditMark(of id: String) {
        FileNames.removeIgnoringFailure(editMarkPath(of: id))
    }

    /// Finishes the edits whose process died (each left `.<id>.edit`; under the store's lock no edit is under way): the
    /// memo's entry takes the facts of its file as it is, old or new (its waveform kept beside it), and what the trash
    /// kept of a version that was never replaced goes. Returns whether anything is left pending (a file that cannot be read now).
    func finishInterruptedEdits(named names: [String], in index: inout MemoIndex) -> Bool {
        var pending = false
        for name in names where name.hasPrefix(".") && name.hasSuffix(".edit") {
            let id = String(name.dropFirst().dropLast(".edit".count))
            if let position = index.memos.firstIndex(where: { $0.id == id }) {
                let memo = index.memos[position]
                MemoTrash(store: directory).cleanUp(id: id, memoFile: filePath(of: memo))
                // A delete that moved the audio out: the reconciliation drops its entry.
                guard FileManager.default.fileExists(atPath: filePath(of: memo)) else {
                    removeEditMark(of: id)
                    continue
                }
                guard let facts = try? AudioFileFacts(url: fileURL(of: memo)) else {
                    pending = true
                    continue
                }
                keepWaveform(facts.waveform, of: id)
                var finished = facts.memo(
                    id: memo.id, title: memo.title, createdAt: memo.createdAt, fileName: memo.fileName, state: .complete)
                // An edit keeps the tags. A CAF file holds no markers: they are the entry's, before the edit, unless
                // the file's length says the edit replaced it, and then where the edit moved them.
                (finished.artist, finished.album, finished.comment) = (memo.artist, memo.album, memo.comment)
                if !memo.format.keepsMarkers {
                    let replaced = abs(facts.duration - memo.duration) * facts.sampleRate >= 0.5
                    let version = MemoTrash(store: directory).versions().last { $0.memo.id == id }
                    finished.markers = replaced
                        ? version.map { $0.edit.markersAfter($0.memo.markers, sampleRate: $0.memo.sampleRate) } ?? []
                        : memo.markers
                    try? keepMarkers(finished.markers, of: id, fileHoldsThem: false)
                }
                index.replace(at: position, with: finished)
            }
            removeEditMark(of: id)
        }
        return pending
    }
}
