import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// A directory of voice memos: the audio files, named `<id>.<format>`, and the change files that say what became of
/// each, `<id>.<clock>-<machine>.change`.
///
/// The directory may be shared between machines by a sync tool: each change to a memo is a file of its own, written
/// once by the machine that made it, and what those files say together (the last change of each field winning, by
/// clock then machine id) is folded into the index wherever they arrive. The index, `memos.json`, is this machine's
/// cache of them and of the audio files' facts, kept outside the store with the machine's id, in `stateDirectory`
/// (see ``init(directory:stateDirectory:)``): nothing a sync tool should not ship is in the store.
///
/// The files are the truth. The index is read and written under an exclusive lock, always atomically (temporary
/// file, fsync, rename), so concurrent processes lose nothing. Whenever the index is read it is reconciled with the
/// directory: a missing or unreadable index is rebuilt from the files (an unreadable one is kept aside as
/// `memos.json.broken-<time>`, never deleted), audio files it does not list are adopted, entries whose file is gone
/// are dropped, and a recording whose process died becomes ``Memo/State/recovered`` (see
/// ``beginRecording(title:settings:artist:album:comment:)``). Beside the index lies `.memos.cache`, a binary copy of it
/// that is read instead of the JSON when it was made from the very same `memos.json` (see `MemoIndexCache`). Once a
/// reconciliation finds nothing to change in a directory that has been still for two seconds, the cache vouches for
/// that directory, and until a file comes or goes in it the directory is not read again: only recordings are checked.
///
/// A store an older voicememo wrote holds its index itself (`memos.json`, `memos.journal`, `.memos.cache`, `.lock`):
/// where this machine has no index of the store yet, that one is read, and once every memo it lists has a change file,
/// those files leave the store.
///
/// The directory is created with mode 0700 and every file in it 0600: recordings are personal data.
///
/// **Thread safety**: a value may be used from any thread; the lock serialises changes across threads
/// and processes alike.
public struct MemoStore: Sendable {
    /// The store directory.
    public let directory: URL
    /// `directory`'s path, kept: `list --json` gives the path of each of thousands of memos.
    let directoryPath: String
    /// The index as this process read it last.
    private let lastRead = MemoIndex.LastRead()
    /// What this machine keeps of the store outside it: its id, the edits folded into the index.
    let local: LocalState

    /// The index file, in this machine's state of the store.
    package var indexURL: URL { local.indexURL }

    /// This machine's state of the store: its index, the index's journal and cache, and the lock.
    package var localStateDirectory: URL { indexURL.deletingLastPathComponent() }

    /// Where a machine whose state is in `stateDirectory` keeps its state of the store at `directory` (see ``LocalState``):
    /// its index, the index's journal and cache, and the lock.
    package static func localStateDirectory(of directory: URL, in stateDirectory: URL) -> URL {
        URL(filePath: LocalState(directory: stateDirectory, store: directory).storeDirectory, directoryHint: .isDirectory)
    }

    /// What an older voicememo kept in the store itself: its index, the index's journal and cache, and its lock.
    static let legacyFileNames = ["memos.json", MemoJournal.fileName, MemoIndexCache.fileName, ".lock"]

    /// Opens the store at `directory`, creating it (mode 0700, with its trash) if needed, as the machine whose state is in
    /// `stateDirectory` (see ``defaultStateDirectory(environment:)``).
    ///
    /// - Throws: ``MemoStoreError/directoryUnusable(path:reason:)`` when it cannot be created or is not a
    ///   directory.
    public init(directory: URL, stateDirectory: URL = MemoStore.defaultStateDirectory()) throws(MemoStoreError) {
        let path = directory.path
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory else { throw .directoryUnusable(path: path, reason: "it is not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .directoryUnusable(path: path, reason: "cannot create it (\(Self.reason(error)))")
            }
            // Its trash with it: a directory takes a block on most file systems, and a delete on a full disk, which
            // needs the trash, would find no room to make it.
            try? FileNames.makeDirectoryIfMissing(MemoTrash(store: directory).path, permissions: [.ownerReadWriteExecute])
        }
        self.directory = directory.standardizedFileURL
        directoryPath = self.directory.path
        local = LocalState(directory: stateDirectory, store: self.directory)
    }

    /// Where this machine keeps its id and what it knows of each store, outside the store (which a sync tool may
    /// share): `$XDG_STATE_HOME/voicememo`, else `~/.local/state/voicememo`. Two processes with different ones are
    /// two machines.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        UserDirectories(environment: environment).state.appendingPathComponent("voicememo")
    }

    /// Where the store is unless told otherwise: `$VOICEMEMO_HOME`, else `$XDG_DATA_HOME/voicememo`,
    /// else `~/.local/share/voicememo`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["VOICEMEMO_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        return UserDirectories(environment: environment).data.appendingPathComponent("voicememo")
    }

    /// The audio file of `memo`.
    public func fileURL(of memo: Memo) -> URL {
        URL(filePath: filePath(of: memo), directoryHint: .notDirectory)
    }

    /// The path of `memo`'s audio file.
    public func filePath(of memo: Memo) -> String {
        directoryPath + "/" + memo.fileName
    }

    /// Every memo, in the order they were added.
    ///
    /// A reader never waits for a writer: when another process holds the store's lock, or the store cannot be
    /// changed at all (a read-only file system, a backup that is not ours), this is the last index written, as the
    /// directory stands, without changing anything. Otherwise what the reconciliation finds (a recording whose
    /// process died, a file copied in) is saved, under the lock.
    public func memos() throws(MemoStoreError) -> [Memo] {
        guard (try? prepareToChange()) != nil, case .acquired(let lock) = FileLock.attempt(path: lockPath, creating: true) else {
            return try reconciledIndex(entering: nil, access: .lookingOnly).index.memos
        }
        defer { lock.unlock() }
        return try reconcileAndSave(entering: nil) { $0.memos }
    }

    /// How a reconciliation may treat the store.
    enum Access {
        /// It holds the lock: it repairs what it recovers, removes leftovers and saves what it finds.
        case changing
        /// It only looks: nothing is written, moved or removed.
        case lookingOnly
    }

    /// The lock this machine's processes take to change the store: in the machine's state of it, beside the index it
    /// guards. Machines that share the store through a sync tool never share a lock; each writes only files of its own.
    var lockPath: String { local.lockPath }

    /// Fails when this process cannot change the store's directory (a read-only file system, its permissions) or make
    /// this machine's state of it.
    private func prepareToChange() throws(MemoStoreError) {
        do throws(Errno) {
            try FileNames.requireWritable(directoryPath)
        } catch {
            throw MemoStoreError(changing: directoryPath, error)
        }
        try local.makeStoreDirectory()
    }

    /// Fails at once, before any work, when this process cannot change the store (a read-only file system, its
    /// permissions), with the error a change would end in.
    func requireChangeable() throws(MemoStoreError) {
        try prepareToChange()
        switch FileLock.attempt(path: lockPath, creating: true) {
        case .unavailable(let error): throw .stateUnusable(path: lockPath, reason: error.description)
        case .acquired(let lock): lock.unlock()
        case .held, .missing: break
        }
    }

    /// Runs `body` on the reconciled index under the store's lock and saves the index if `body` changed it; waits for
    /// the lock as long as another process holds it. `entering` names an audio file that `body` itself enters: it is
    /// not adopted (and read through) first.
    ///
    /// - Throws: ``MemoStoreError/readOnly(path:)`` or ``MemoStoreError/notWritable(path:reason:)`` when the store
    ///   cannot be changed, and what `body` throws.
    func update<T>(
        entering fileName: String? = nil, _ body: (inout MemoIndex) throws(MemoStoreError) -> T
    ) throws(MemoStoreError) -> T {
        try prepareToChange()
        let lock = try FileLock(path: lockPath, storePath: directory.path)
        defer { lock.unlock() }
        return try reconcileAndSave(entering: fileName, body)
    }

    /// ``update(entering:_:)`` once the lock is held.
    func reconcileAndSave<T>(
        entering fileName: String?, _ body: (inout MemoIndex) throws(MemoStoreError) -> T
    ) throws(MemoStoreError) -> T {
        var reconciled = try reconciledIndex(entering: fileName, access: .changing)
        // What the trash has kept for its days goes whenever the store is used (a look at its directory when not due).
        MemoTrash(store: directory).purgeExpired()
        reconciled.index.beginTracking()
        let result = try body(&reconciled.index)
        try writeLocalEdits(of: &reconciled.index, sync: &reconciled.sync)
        defer { finishSync(reconciled.sync) }
        if let machine = try? local.machineID() { reconciled.index.machine = machine }
        let isChanged = reconciled.isRebuilt || !reconciled.index.changes.isEmpty
        if isChanged {
            let journal = try reconciled.index.save(to: indexURL, journal: reconciled.journal, wholly: reconciled.isRebuilt)
            if let journal {
                MemoIndex.remember(reconciled.index, vouchedDirectory: reconciled.vouchedDirectory, journal: journal, beside: indexURL, in: lastRead)
            }
        }
        if !reconciled.legacyFiles.isEmpty { removeLegacyFiles(reconciled.legacyFiles, of: reconciled.index, sync: &reconciled.sync) }
        if !isChanged, let directory = reconciled.vouchableDirectory, MemoIndexCache.Identity(path: directoryPath) == directory {
            // Nothing came or went while the directory was compared with the index: until something does, the next
            // reader can skip reading it.
            MemoIndex.vouch(for: directory, beside: indexURL)
        }
        return result
    }

    /// The index as the directory stands, and what became of it on the way.
    private struct ReconciledIndex {
        var index: MemoIndex
        /// Where the index's journal stands; `nil` when the next change writes `memos.json` whole.
        var journal: MemoIndex.JournalPosition?
        /// The index was missing or damaged: it is written whole.
        var isRebuilt = false
        /// The identity of the directory its cache vouches for, if any.
        var vouchedDirectory: MemoIndexCache.Identity?
        /// The identity the directory had when it was read, if the index's cache may vouch for it: nothing was left
        /// pending, and a later change is sure to show in the identity. Nil when the cache vouches for it already.
        var vouchableDirectory: MemoIndexCache.Identity?
        /// What it knows of the store's change files.
        var sync: SyncPass
        /// The names of ``MemoStore/legacyFileNames`` in the store's directory.
        var legacyFiles: [String] = []
    }

    /// The index as the directory stands: loaded, or rebuilt, plus adopted files (but `entering`), minus
    /// vanished ones.
    private func reconciledIndex(entering: String?, access: Access) throws(MemoStoreError) -> ReconciledIndex {
        var reconciled = try loadedIndex(access: access)
        let vouchedDirectory = reconciled.vouchedDirectory
        // Taken before the directory is read, so that whatever changes it from now on shows.
        let directoryIdentity = MemoIndexCache.Identity(path: directoryPath)
        if reconciled.sync.isCurrent, let vouchedDirectory, vouchedDirectory == directoryIdentity,
           reconciled.index.memos.allSatisfy({
               $0.isWellFormed && $0.state != .syncing && ($0.state != .recording || recordingStatus(of: $0.id, access: access) == .live)
           }) {
            return reconciled
        }
        let listing: DirectoryListing.Listing
        do {
            listing = try DirectoryListing.scan(at: directoryPath)
        } catch {
            throw .directoryUnusable(path: directoryPath, reason: "cannot read it (\(error))")
        }
        // Something pending (a leftover spared, a file not yet readable) may change without the directory changing.
        var isPending = access == .changing && removeLeftovers(in: listing, listed: reconciled.index.memos)
        reconciled.legacyFiles = Self.legacyFileNames.filter(listing.otherNames.contains)
        // Until they are gone, the directory is read each time: they go once every memo has a change file.
        isPending = isPending || !reconciled.legacyFiles.isEmpty
        if access == .changing { isPending = finishInterruptedEdits(named: listing.otherNames, in: &reconciled.index) || isPending }
        // Regular files only: a link planted in the store would make a file elsewhere a memo, to be rewritten.
        // Each listed memo takes its file off this set; what remains is adopted.
        var unlisted = listing.storeFiles
        // Entries are changed where they stand, and dropped in one pass at the end, so that a store of thousands
        // of memos is not copied memo by memo.
        var dropped: [Int] = []
        // Memos listed as still arriving: each is made again from its file, as it now stands, and its changes.
        var arriving: Set<String> = []
        for position in reconciled.index.memos.indices {
            let memo = reconciled.index.memos[position]
            let key = Memo.fileKey(ofFileName: memo.fileName)
            let fileIsThere = key.map { unlisted.remove($0) != nil } ?? false
            // An entry names its file by its own id, or it is forged: it must not lead outside the store. An
            // entry with numbers no memo has is dropped too; its file is adopted again from its own facts.
            guard memo.isWellFormed else {
                if fileIsThere, let key { unlisted.insert(key) }
                dropped.append(position)
                continue
            }
            if memo.state == .syncing {
                if fileIsThere, let key { unlisted.insert(key) }
                dropped.append(position)
                arriving.insert(memo.id)
                continue
            }
            if memo.state == .recording {
                // A live recording keeps its entry, even before its file exists.
                let status = recordingStatus(of: memo.id, access: access)
                if status == .live { continue }
                // Another machine's recording, finished there: its file is adopted again, whole, with that machine's
                // changes.
                if status == .finishedElsewhere {
                    if fileIsThere, let key { unlisted.insert(key) }
                    dropped.append(position)
                    continue
                }
                // Its process died: the memo keeps what reached the disk, even if that is nothing. One that died before
                // it made its file has no memo to show.
                if fileIsThere {
                    reconciled.index.replace(at: position, with: recovered(memo, access: access))
                } else {
                    dropped.append(position)
                }
            } else if !fileIsThere {
                dropped.append(position)
            } else if let size = FileManager.default.sizeOfItem(atPath: directoryPath + "/" + memo.fileName), size != memo.sizeBytes {
                // Its file was replaced behind the index's back: a sync tool brought another machine's.
                reconciled.index.replace(at: position, with: replaced(memo, size: size, access: access))
            }
        }
        reconciled.index.remove(atPositions: dropped)
        var adopted: Set<String> = []
        for name in unlisted.sorted().map(Memo.fileName(forKey:)) {
            guard name != entering, let memo = adoptedMemo(fileName: name, access: access) else {
                isPending = true
                continue
            }
            reconciled.index.append(memo)
            adopted.insert(memo.id)
        }
        foldEdits(names: listing.otherNames, adopted: adopted.union(arriving), into: &reconciled.index, sync: &reconciled.sync, access: access)
        if !isPending, let directoryIdentity, directoryIdentity.revealsLaterChanges(ofDirectoryAt: directoryPath) {
            reconciled.vouchableDirectory = directoryIdentity
        }
        return reconciled
    }

    /// The index as its file (or its cache) has it, rebuilt empty when missing or damaged (a damaged one is kept
    /// aside when the store may be changed), and the directory its cache vouches for.
    private func loadedIndex(access: Access) throws(MemoStoreError) -> ReconciledIndex {
        // Before the index: an index replaced after this shows as another than the one the edits were folded into.
        let sync = startSync()
        switch MemoIndex.load(from: indexURL, remembering: lastRead, taking: access == .changing) {
        case .index(let loaded, let vouched, let journal):
            return ReconciledIndex(index: loaded, journal: journal, vouchedDirectory: vouched, sync: sync)
        case .missing:
            // A store of an older voicememo: its own index, where this machine has none yet, says what no change file
            // does (titles longer than the audio's tags keep, loudness); written here whole.
            let legacy = directory.appendingPathComponent("memos.json")
            if case .index(let index, _, _) = MemoIndex.load(from: legacy, remembering: MemoIndex.LastRead()) {
                var sync = sync
                sync.migratedFrom = MemoIndex.writer(of: legacy)
                return ReconciledIndex(index: index, isRebuilt: true, sync: sync)
            }
            return ReconciledIndex(index: MemoIndex(), isRebuilt: true, sync: sync)
        case .inaccessible(let error):
            throw .indexInaccessible(path: indexURL.path, reason: error.description)
        case .unreadable:
            if access == .changing { keepDamagedIndexAside() }
            return ReconciledIndex(index: MemoIndex(), isRebuilt: true, sync: sync)
        case .newerSchema(let version):
            throw .newerSchema(path: indexURL.path, version: version)
        }
    }

    /// `memo`, whose recording process died, as its file now stands: the file's cut end repaired (an Opus page torn
    /// by the kill, an M4A's torn fragment), then its length, levels, loudness and size read from it, and its waveform,
    /// measured on the way, kept beside it; its tags and the markers noted while it recorded as the index has them. A
    /// file with no audio in it (empty, headers only) or one that cannot be read makes a memo of length 0 with silent
    /// levels: the memo stays listed, so that nobody loses sight of a recording that failed.
    private func recovered(_ memo: Memo, access: Access) -> Memo {
        let file = fileURL(of: memo)
        if access == .changing { _ = try? AudioFile.repairCutRecording(at: file) }
        if let facts = try? AudioFileFacts(url: file) {
            if access == .changing { keepWaveform(facts.waveform, of: memo.id) }
            var recovered = facts.memo(id: memo.id, title: memo.title, createdAt: memo.createdAt, fileName: memo.fileName, state: .recovered)
            (recovered.artist, recovered.album, recovered.comment) = (memo.artist, memo.album, memo.comment)
            // The file holds markers only if it was finished; of those noted, the ones within the audio that reached it.
            let markers = memo.markers.isEmpty ? recovered.markers : memo.markers
            recovered.markers = markers.filter { $0.framePosition <= Int64((recovered.duration * recovered.sampleRate).rounded()) }
            return recovered
        }
        var empty = memo
        empty.state = .recovered
        empty.duration = 0
        empty.sizeBytes = FileManager.default.sizeOfItem(atPath: file.path) ?? 0
        empty.peakDBFS = Array(repeating: AudioLevels.floor, count: memo.channels)
        empty.averageDBFS = empty.peakDBFS
        return empty
    }

    /// Removes from the store the files of an older voicememo's index, and this machine's state of the store as that
    /// voicememo kept it, once every memo but a recording has a change file: the change files then say all the older
    /// index did. Until then they stay, and are read again where this machine's index is lost.
    private func removeLegacyFiles(_ names: [String], of index: MemoIndex, sync: inout SyncPass) {
        let changed = Set(sync.folded(in: local).compactMap { MemoEditRecord.parse(fileName: $0)?.id })
        guard index.memos.allSatisfy({ $0.state == .recording || changed.contains($0.id) }) else { return }
        for name in names { FileNames.removeIgnoringFailure(directoryPath + "/" + name) }
        for path in local.legacyPaths { FileNames.removeIgnoringFailure(path) }
    }

    /// Moves the damaged index to `memos.json.broken-<seconds>`, or `-2`, `-3`… beside it when that is taken: no copy
    /// of a damaged index is ever replaced, however many there are.
    private func keepDamagedIndexAside() {
        let stem = indexURL.path + ".broken-\(Int(Date().timeIntervalSince1970))"
        for attempt in 1...1000 {
            do {
                try DurableFile.place(indexURL.path, at: attempt == 1 ? stem : "\(stem)-\(attempt)")
                return
            } catch .fileExists {
                continue
            } catch {
                return
            }
        }
    }

    /// A memo for an audio file the index does not list, from the file's own metadata and samples; its
    /// state comes from its recording lock, if it has one. An unreadable file is left alone (and
    /// unlisted) rather than deleted.
    private func adoptedMemo(fileName: String, access: Access) -> Memo? {
        guard let id = Memo.id(fromFileName: fileName).map(String.init) else { return nil }
        let url = directory.appendingPathComponent(fileName)
        let status = recordingStatus(of: id, access: access)
        // A recording that died before its index entry was written: its file may end in a torn page.
        if status == .ended, access == .changing { _ = try? AudioFile.repairCutRecording(at: url) }
        guard let facts = try? AudioFileFacts(url: url) else { return nil }
        // A live recording's file grows: its waveform is kept when it ends.
        if access == .changing, status != .live { keepWaveform(facts.waveform, of: id) }
        let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? Date()
        let state: Memo.State = switch status {
        case .none, .finishedElsewhere: .complete
        case .live: .recording
        case .ended: .recovered
        }
        var memo = facts.memo(
            id: id, title: keptTitle(of: id) ?? facts.metadata.title ?? "Untitled",
            createdAt: facts.metadata.creationDate ?? modified, fileName: fileName, state: state)
        if let markers = keptMarkers(of: id) { memo.markers = markers }
        return memo
    }

    /// Removes what killed processes left half-written: drafts of change files and kept titles, the recording
    /// locks of memos never listed (all made only under the store's lock, which the caller holds), titles, markers and
    /// waveforms kept for audio files that are gone, and converted files no writer holds locked any more. A converted file of a few
    /// seconds is spared, in case its writer has just created it and not yet locked it. Returns whether it spared
    /// any leftover.
    private func removeLeftovers(in listing: DirectoryListing.Listing, listed memos: [Memo]) -> Bool {
        let hidden = listing.otherNames.filter { $0.hasPrefix(".") }
        // Most stores hold nothing but the index's own hidden files: the ids are gathered only when needed.
        let listed = hidden.contains { $0.hasSuffix(".recording") } ? Set(memos.map(\.id)) : []
        var spared = false
        for name in hidden {
            let path = directory.appendingPathComponent(name).path
            // A sync tool's temporary file is the file it is writing now: Syncthing's `.syncthing.<name>.tmp`.
            if name.hasSuffix(".tmp"), !name.hasPrefix(".syncthing.") {
                FileNames.removeIgnoringFailure(path)
            } else if let suffix = [".title", ".markers", Self.waveformSuffix].first(where: name.hasSuffix),
                      !Memo.fileKeys(ofID: name.dropFirst().dropLast(suffix.count)).contains(where: listing.storeFiles.contains) {
                FileNames.removeIgnoringFailure(path)
            } else if name.hasSuffix(".recording"), !listed.contains(String(name.dropFirst().dropLast(".recording".count))),
                      // Another machine's, brought by a sync tool ahead of its memo's file: that machine's to settle.
                      recordingOwner(at: path).map({ $0 == (try? local.machineID()) }) ?? true {
                spared = !removeUnlocked(path) || spared
            } else if name.hasSuffix(".partial") {
                let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                let isOld = modified.map { $0.timeIntervalSinceNow < -Self.partialFileGrace } ?? false
                spared = !(isOld && removeUnlocked(path)) || spared
            }
        }
        return spared
    }

    /// Removes the file at `path` if no process holds it locked; returns whether it did.
    private func removeUnlocked(_ path: String) -> Bool {
        guard case .acquired(let lock) = FileLock.attempt(path: path) else { return false }
        FileNames.removeIgnoringFailure(path)
        lock.unlock()
        return true
    }

    /// Seconds a converted file may go unlocked before it counts as left behind.
    static let partialFileGrace = 10.0

    /// Why a `FileManager` call failed, in the C library's words (e.g. "Permission denied"), as the lock's
    /// errors say it.
    static func reason(_ error: any Error) -> String {
        guard let posix = (error as? CocoaError)?.underlying as? POSIXError else { return "\(error)" }
        return Errno(rawValue: posix.code.rawValue).description
    }
}
