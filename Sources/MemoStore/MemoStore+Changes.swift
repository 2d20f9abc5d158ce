import AudioIO
import FoundationEssentials
import Synchronization
import SystemEdge
import SystemPackage

extension MemoStore {
    /// Gives `memo` a new title, in the index and inside the audio file's own metadata; the audio stays as it is.
    ///
    /// A WAV or CAF file is rewritten with the new title through `AudioFileConverter`, keeping its settings
    /// (`AudioSettings.init(preserving:as:)`): 16- and 24-bit PCM stay bit for bit. An Opus file is copied packet by
    /// packet with a new comment header (`OpusTags`, on its own pages, libogg framing them), an M4A file's AAC packets
    /// into one with new tags (FFmpeg's MP4 muxer): every audio packet and its position stays as it was, nothing is
    /// encoded again. The new file is written beside the old one, synced, and replaces it in one step, so a failure
    /// leaves the memo as it was; its artist, album, comment and markers stay, in the file and in the index. The file
    /// with the old title goes to the trash (a second link to it, as an edit's version, ``MemoEdit/rename``), so that
    /// ``restore(_:)`` and ``undo()`` bring the old title back; not that of an Opus file that could not be copied.
    ///
    /// A file keeps at most `AudioMetadata.maximumStoredTitleBytes` of a title; a longer one is kept whole in the
    /// index and beside the file, so an index rebuilt from the files has it too. So is the title of an Opus file whose
    /// stream cannot be copied (damaged before its end), which is left as it is.
    ///
    /// All of it happens under the store's lock.
    ///
    /// - Parameters:
    ///   - memo: A memo of this store.
    ///   - title: The new title: any text; it never becomes part of a path.
    /// - Returns: The renamed memo (its file's size changes with the length of its title).
    /// - Throws: ``MemoStoreError/noMatch(_:)`` when the memo is no longer in the store,
    ///   ``MemoStoreError/recordingInProgress(_:)`` while it is being recorded, `AudioFileError` when its
    ///   file cannot be rewritten (the memo keeps its old title), other ``MemoStoreError``s for the index.
    @discardableResult
    public func rename(_ memo: Memo, to title: String) throws -> Memo {
        try requireChangeable()
        // A WAV or CAF file with the new title is made before the lock is taken: a long memo takes a while.
        let staged = memo.format == .opus ? nil : try stageRetitled(memo, title: title)
        let done = try update { index throws(MemoStoreError) in
            try renamed(memo.id, to: title, placing: staged, in: &index)
        }
        removeEditMark(of: memo.id)
        return try done.get()
    }

    /// Gives the memo `reference` names (an id, a unique prefix of one, or a title, as ``memo(matching:)`` takes it)
    /// a new title, as ``rename(_:to:)`` does; for an Opus memo, in one hold of the lock, without reading the store
    /// first: in a store of 50,000 memos, that read is most of what a rename costs, and copying a memo's packets with a
    /// new comment header takes a few milliseconds a minute of audio.
    ///
    /// - Returns: The memo before and after.
    /// - Throws: What ``memo(matching:)`` and ``rename(_:to:)`` throw.
    public func rename(matching reference: String, to title: String) throws -> (before: Memo, after: Memo) {
        try requireChangeable()
        let done: Result<(before: Memo, after: Memo), AudioFileError>? = try update { index throws(MemoStoreError) in
            let memo = try Self.memo(matching: reference, in: index.memos)
            guard memo.format == .opus else { return nil }
            return try renamed(memo.id, to: title, placing: nil, in: &index).map { (memo, $0) }
        }
        if let done {
            if case .success(let renamed) = done { removeEditMark(of: renamed.before.id) }
            return try done.get()
        }
        let memo = try memo(matching: reference)
        return (memo, try rename(memo, to: title))
    }

    /// A copy of `memo`'s WAV, CAF or M4A file with `title` inside, staged beside it.
    private func stageRetitled(_ memo: Memo, title: String) throws -> StagedAudioFile {
        guard let current = try memos().first(where: { $0.id == memo.id }) else { throw MemoStoreError.noMatch(memo.id) }
        try current.requireWhole()
        let file = fileURL(of: current)
        var metadata = current.metadata
        metadata.title = title
        if current.format == .aac,
           let copy = try AudioFileConverter.stageM4ACopy(of: file, beside: file, metadata: metadata, permissions: [.ownerReadWrite]) {
            return copy
        }
        return try AudioFileConverter.stage(
            contentsOf: file, beside: file, settings: AudioSettings(preserving: AudioFile(forReading: file)),
            metadata: metadata, permissions: [.ownerReadWrite])
    }

    /// Renames memo `id` in `index`, putting `staged` (its WAV or CAF file with the new title inside) in place of its
    /// file, or for an Opus memo a copy with the new title made here; under the store's lock. The file it replaces
    /// goes to the trash, with the mark of an edit beside the memo until the caller has saved the index and removes it.
    private func renamed(
        _ id: String, to title: String, placing staged: StagedAudioFile?, in index: inout MemoIndex
    ) throws(MemoStoreError) -> Result<Memo, AudioFileError> {
        guard let position = index.memos.firstIndex(where: { $0.id == id }) else { throw .noMatch(id) }
        let before = index.memos[position]
        var renamed = before
        try renamed.requireWhole()
        renamed.title = title
        let file = fileURL(of: renamed)
        var retitled = staged
        do throws(AudioFileError) {
            if renamed.format == .opus {
                retitled = try Self.stageRetaggedOpus(file, metadata: renamed.metadata)
            }
        } catch {
            return .failure(error)
        }
        if let retitled {
            try markEdit(of: id)
            let trash = MemoTrash(store: directory)
            do throws(MemoStoreError) {
                _ = try trash.keep(before, file: file.path, waveform: waveformPath(of: id), before: .rename)
            } catch {
                removeEditMark(of: id)
                throw error
            }
            do throws(AudioFileError) {
                renamed.sizeBytes = try retitled.place(at: file, replacingExisting: true).byteCount
            } catch {
                // Nothing was replaced: what the trash kept is the memo's file itself, and goes.
                trash.cleanUp(id: id, memoFile: file.path)
                removeEditMark(of: id)
                return .failure(error)
            }
        }
        // An Opus file whose stream could not be copied keeps the title it had: the new one is kept beside it.
        let fileTitle = retitled == nil ? nil : Self.storedTitle(title)
        try keepTitle(title, of: renamed.id, fileTitle: fileTitle)
        index.replace(at: position, with: renamed)
        return .success(renamed)
    }

    /// A copy of the Opus file at `file` with `metadata` in its comment header and its packets as they are, staged
    /// beside it; `nil` when its stream cannot be copied (damaged before its end).
    private static func stageRetaggedOpus(_ file: URL, metadata: AudioMetadata) throws(AudioFileError) -> StagedAudioFile? {
        do {
            return try AudioFileConverter.stageOpusCopy(
                of: file, beside: file, metadata: metadata, readingBack: false, permissions: [.ownerReadWrite])
        } catch let error as AudioFileError {
            throw error
        } catch {
            throw AudioFileError(path: file.path, reason: .writeFailed("\(error)"))
        }
    }

    /// Moves `memos` to the trash, under one hold of the store's lock: each leaves the index and the store's
    /// directory, and stays in the trash, its audio, waveform and entry whole, for ``trashDays`` days or until the
    /// trash is emptied; ``restore(matching:)`` or ``undo()`` bring it back. Its earlier versions stay in the trash too.
    ///
    /// Every memo is checked before anything is moved, so one that is no longer in the store or is being recorded
    /// deletes nothing. Each memo's audio is linked into the trash, with its entry, before it leaves the store, with
    /// the mark of an edit beside it until the index is saved: a process killed at any point leaves each memo in the
    /// store or in the trash, whole.
    ///
    /// - Parameter memos: Memos of this store.
    /// - Throws: ``MemoStoreError/noMatch(_:)`` for a memo no longer in the store,
    ///   ``MemoStoreError/recordingInProgress(_:)`` for one being recorded,
    ///   ``MemoStoreError/deleteFailed(path:reason:)`` when a file cannot be moved, or
    ///   ``MemoStoreError/noSpace(path:)`` when the trash has no room for a memo's record even once its waveform is
    ///   dropped (the memos before it in `memos` are deleted, the others are not: ``deleteForGood(_:)`` needs no room),
    ///   ``MemoStoreError/deletedButIndexNotSaved(titles:reason:)`` when the audio is in the trash but the index could
    ///   not be written, other ``MemoStoreError``s for the index.
    public func delete(_ memos: [Memo]) throws(MemoStoreError) {
        let removed = RemovedTitles()
        let failure: MemoStoreError?
        do {
            failure = try deleteFiles(of: memos, noting: removed)
        } catch .indexWriteFailed(_, let reason) where !removed.titles.withLock({ $0.isEmpty }) {
            throw .deletedButIndexNotSaved(titles: removed.titles.withLock { $0 }, reason: reason)
        }
        if let failure { throw failure }
    }

    /// Removes `memos` for good, without the trash, under one hold of the store's lock: each leaves the index and the
    /// store's directory, its versions in the trash with it, and its delete is a change file as a delete to the trash
    /// is. What a full disk needs: a delete to the trash frees nothing, and needs room for its record.
    ///
    /// Every memo is checked before anything is removed. Each memo's audio goes first, then what is kept beside it and
    /// its versions in the trash; the change files are written once they are all gone, in the room they freed. A
    /// process killed before those are written leaves the memos deleted here, and the other machines sharing the
    /// store not told.
    ///
    /// - Parameter memos: Memos of this store.
    /// - Returns: The bytes freed: the memos' audio and their versions in the trash.
    /// - Throws: ``MemoStoreError/noMatch(_:)`` for a memo no longer in the store,
    ///   ``MemoStoreError/recordingInProgress(_:)`` for one being recorded,
    ///   ``MemoStoreError/deleteFailed(path:reason:)`` when a file cannot be removed (the memos before it in `memos`
    ///   are deleted, the others are not), ``MemoStoreError/deletedButIndexNotSaved(titles:reason:)`` when the audio is
    ///   gone but the index could not be written, other ``MemoStoreError``s for the index.
    @discardableResult
    public func deleteForGood(_ memos: [Memo]) throws(MemoStoreError) -> Int64 {
        let removed = RemovedTitles()
        let outcome: (freed: Int64, failure: MemoStoreError?)
        do {
            outcome = try update { index throws(MemoStoreError) in
                for memo in memos {
                    guard let listed = index.memos.first(where: { $0.id == memo.id }) else { throw .noMatch(memo.id) }
                    try listed.requireWhole()
                }
                let trash = MemoTrash(store: directory)
                var freed: Int64 = 0
                for memo in memos {
                    guard let listed = index.memos.first(where: { $0.id == memo.id }) else { continue }
                    let path = filePath(of: listed)
                    do throws(Errno) {
                        try FileNames.removeIfPresent(path)
                    } catch {
                        return (freed, .deleteFailed(path: path, reason: error.description))
                    }
                    freed += listed.sizeBytes
                    for kept in [titlePath(of: memo.id), waveformPath(of: memo.id), markersPath(of: memo.id)] {
                        FileNames.removeIgnoringFailure(kept)
                    }
                    freed += trash.empty(ids: [memo.id])
                    removed.titles.withLock { $0.append(listed.title) }
                    index.remove(ids: [memo.id])
                }
                return (freed, nil)
            }
        } catch .indexWriteFailed(_, let reason) where !removed.titles.withLock({ $0.isEmpty }) {
            throw .deletedButIndexNotSaved(titles: removed.titles.withLock { $0 }, reason: reason)
        }
        if let failure = outcome.failure { throw failure }
        return outcome.freed
    }

    /// The titles of the memos whose audio a delete has removed so far.
    private final class RemovedTitles: Sendable {
        let titles = Mutex<[String]>([])
    }

    private func deleteFiles(of memos: [Memo], noting removed: RemovedTitles) throws(MemoStoreError) -> MemoStoreError? {
        try update { index throws(MemoStoreError) in
            for memo in memos {
                guard let listed = index.memos.first(where: { $0.id == memo.id }) else { throw .noMatch(memo.id) }
                try listed.requireWhole()
            }
            // Each file goes to the trash before its entry goes. Stopped in between (a crash, an index that cannot be
            // written), the entry names a file that is gone, and reconciliation, which drops such entries on every
            // read, finishes the delete. The other order could not be repaired so: a file left without its entry
            // is adopted back, and a memo the user deleted would come back.
            // Each memo's mark stands while the trash holds a link to a file still in the store: a process killed then
            // leaves the memo where it is, the link dropped by the next (``finishInterruptedEdits``).
            let trash = MemoTrash(store: directory)
            defer { for memo in memos { removeEditMark(of: memo.id) } }
            for memo in memos {
                let path = filePath(of: memo)
                guard let listed = index.memos.first(where: { $0.id == memo.id }) else { continue }
                try markEdit(of: memo.id)
                do throws(MemoStoreError) {
                    do throws(MemoStoreError) {
                        _ = try trash.keep(listed, file: path, waveform: waveformPath(of: memo.id), before: .delete)
                    } catch .noSpace {
                        // On a full disk, derived data goes first: the memo's waveform (measured again when asked for)
                        // frees the room the trash's record and the delete's change file take, a block each.
                        FileNames.removeIgnoringFailure(waveformPath(of: memo.id))
                        _ = try trash.keep(listed, file: path, before: .delete)
                    }
                } catch .editFailed(let trashPath, let reason) {
                    return .deleteFailed(path: trashPath, reason: reason)
                } catch .noSpace(let trashPath) {
                    return .noSpace(path: trashPath)
                }
                do throws(Errno) {
                    try FileNames.removeIfPresent(path)
                } catch {
                    trash.cleanUp(id: memo.id, memoFile: path)
                    return .deleteFailed(path: path, reason: error.description)
                }
                // The trash's entry has the title and the markers: what is kept beside the audio goes.
                FileNames.removeIgnoringFailure(titlePath(of: memo.id))
                FileNames.removeIgnoringFailure(waveformPath(of: memo.id))
                FileNames.removeIgnoringFailure(markersPath(of: memo.id))
                removed.titles.withLock { $0.append(memo.title) }
                index.remove(ids: [memo.id])
            }
            return nil
        }
    }
}
