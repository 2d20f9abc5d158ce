import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// A store shared by a sync tool: each change is an change file (``MemoEditRecord``) that only its machine writes, once,
/// and the index is what the change files say together (``MemoMerge``), folded into it as they come.
extension MemoStore {
    /// What a reconciliation knows of the store's change files.
    struct SyncPass {
        /// This machine's state of the store, as it is to be saved.
        var state: LocalState.Store
        /// The state as it was loaded: saved again only when it changed.
        let loaded: LocalState.Store
        /// Whether the index is the one the state's edits were folded into.
        let isCurrent: Bool
        /// The names of the change files folded into the index, once read (see ``folded(in:)``).
        private(set) var foldedNames: Set<String>?
        /// Whether ``foldedNames`` changed since it was read.
        private(set) var foldedChanged = false
        /// When the index is an older voicememo's, read from the store itself: the machine that wrote it, if it names one.
        var migratedFrom: String?

        init(state: LocalState.Store, loaded: LocalState.Store, isCurrent: Bool) {
            (self.state, self.loaded, self.isCurrent) = (state, loaded, isCurrent)
            // Folded into another index, they are all to be folded again.
            if !isCurrent { foldedNames = [] }
        }

        /// The names of the change files folded into the index, read from `local` the first time.
        mutating func folded(in local: LocalState) -> Set<String> {
            if let foldedNames { return foldedNames }
            let names = local.loadFolded()
            foldedNames = names
            return names
        }

        /// Sets the names of the change files folded into the index.
        mutating func setFolded(_ names: Set<String>, in local: LocalState) {
            if names != folded(in: local) || !isCurrent { foldedChanged = true }
            foldedNames = names
        }
    }

    var journalPath: String { local.storeDirectory + "/" + MemoJournal.fileName }

    /// This machine's state of the store; when the index is not the one it folded edits into (it was rebuilt, an older
    /// voicememo wrote it, it is the first use), every edit is to be folded again.
    func startSync() -> SyncPass {
        let loaded = local.load()
        let isCurrent = loaded.index != nil && loaded.index == LocalState.identity(of: indexURL.path)
            && loaded.journal == LocalState.identity(of: journalPath)
        return SyncPass(state: loaded, loaded: loaded, isCurrent: isCurrent)
    }

    /// Folds into `index` the edits in `names` (the directory's names other than audio files) that it lacks, and those
    /// of the memos `adopted` just now; when the store may be changed, merges the sync tools' conflict copies of edit
    /// files first, and gives every memo without an change file one that says what the index has (a store of an older
    /// voicememo, a file copied in), of clock 0, which any real edit overrides.
    func foldEdits(names: [String], adopted: Set<String>, into index: inout MemoIndex, sync: inout SyncPass, access: Access) {
        var edits: [String: [String]] = [:]
        var conflicts: [(copy: String, original: String)] = []
        for name in names {
            if let parsed = MemoEditRecord.parse(fileName: name) {
                edits[parsed.id, default: []].append(name)
                sync.state.clock = max(sync.state.clock, parsed.stamp.clock)
            } else if let original = MemoEditRecord.original(ofConflictCopy: name) {
                conflicts.append((name, original))
            }
        }
        var refold = adopted
        if access == .changing { keepAudioConflictCopies(names, of: index) }
        if access == .changing {
            for conflict in conflicts {
                guard mergeConflictCopy(conflict.copy, into: conflict.original),
                      let parsed = MemoEditRecord.parse(fileName: conflict.original)
                else { continue }
                sync.state.conflictsMerged += 1
                if edits[parsed.id]?.contains(conflict.original) != true { edits[parsed.id, default: []].append(conflict.original) }
                sync.state.clock = max(sync.state.clock, parsed.stamp.clock)
                refold.insert(parsed.id)
            }
        }
        let folded = sync.folded(in: local)
        for (id, list) in edits where list.contains(where: { !folded.contains($0) }) { refold.insert(id) }
        // What a program that writes no edits changed in the index (an older voicememo, a hand) becomes this machine's
        // edit; not what another machine's index says (a sync tool's copy, behind its change files), nor what a file
        // adopted just now says of itself (a title cut short to fit its tags).
        var unrecorded: [(memo: Memo, fields: [MemoEditRecord.Field])] = []
        let isOtherMachinesIndex = sync.migratedFrom.map { $0 != (try? local.machineID()) } ?? false
        for id in refold.sorted() {
            guard let list = edits[id] else { continue }
            let records = list.compactMap { MemoEditRecord.read(at: directoryPath + "/" + $0, named: $0) }
            let fields = fold(records, of: id, into: &index, keepingUnrecorded: !sync.isCurrent && !isOtherMachinesIndex && !adopted.contains(id), access: access)
            if let fields, let memo = index.memos.first(where: { $0.id == id }) { unrecorded.append((memo, fields)) }
        }
        if access == .changing, !unrecorded.isEmpty, let machine = try? local.machineID() {
            sync.state.clock += 1
            for (memo, fields) in unrecorded {
                let record = MemoEditRecord(of: memo, fields: fields, clock: sync.state.clock, machine: machine)
                guard (try? write(record, syncing: true)) != nil else { continue }
                edits[memo.id, default: []].append(record.fileName)
            }
        }
        if access == .changing, let machine = try? local.machineID() {
            var written = false
            for memo in index.memos where memo.state != .recording && edits[memo.id] == nil {
                let record = MemoEditRecord(of: memo, fields: MemoEditRecord.Field.allCases.filter { $0 != .audio && $0 != .deleted },
                                            clock: 0, machine: machine, madeAt: memo.createdAt)
                // Not synced one by one: a store of thousands is migrated in one go, and the directory is synced after.
                guard (try? write(record, syncing: false)) != nil else { continue }
                edits[memo.id] = [record.fileName]
                written = true
            }
            if written { try? DurableFile.syncDirectory(containing: directoryPath + "/.") }
        }
        sync.setFolded(Set(edits.values.joined()), in: local)
    }

    /// Moves each sync tool's conflict copy of a memo's audio (Syncthing's `<id>.sync-conflict-<when>-<device>.<format>`,
    /// made when two machines changed the audio at once) to the trash, as a version of the memo: kept, and out of the
    /// store. The same on every machine: the copy is synced too, and whichever machine moves it first, its removal
    /// reaches the others.
    private func keepAudioConflictCopies(_ names: [String], of index: MemoIndex) {
        let trash = MemoTrash(store: directory)
        for name in names {
            guard let marker = name.firstRange(of: ".sync-conflict-"), let dot = name[marker.upperBound...].lastIndex(of: ".")
            else { continue }
            let original = String(name[..<marker.lowerBound] + name[dot...])
            guard Memo.fileKey(ofFileName: original) != nil, let memo = index.memos.first(where: { $0.fileName == original }) else { continue }
            let copy = directoryPath + "/" + name
            guard (try? trash.keep(memo, file: copy, before: .syncConflict)) != nil else { continue }
            FileNames.removeIgnoringFailure(copy)
        }
    }

    /// Makes memo `id` in `index` what its edits `records` say: deleted (its audio moved to the trash, unless the trash
    /// has its delete already), its fields set, its audio's facts read again when an edit changed it, or brought back
    /// from the trash when an edit came after its delete. With `keepingUnrecorded`, a field whose value in the index
    /// no edit set keeps it; returns those fields, when there are any.
    private func fold(
        _ records: [MemoEditRecord], of id: String, into index: inout MemoIndex, keepingUnrecorded: Bool, access: Access
    ) -> [MemoEditRecord.Field]? {
        guard !records.isEmpty else { return nil }
        let merge = MemoMerge(records)
        let position = index.memos.firstIndex { $0.id == id }
        if let position, index.memos[position].state == .recording { return nil }
        if merge.isDeleted {
            guard let position else { return nil }
            if access == .changing { moveToTrash(index.memos[position]) }
            index.remove(atPositions: [position])
        } else if let position {
            var memo = index.memos[position]
            let kept = keepingUnrecorded ? merge.unrecordedFields(of: memo) : []
            if merge.audioChanged { memo = reread(memo, access: access) }
            memo = merge.applied(to: memo, keeping: kept)
            if merge.isArriving(memo) { memo.state = .syncing }
            if memo != index.memos[position] { index.replace(at: position, with: memo) }
            return kept.isEmpty ? nil : kept
        } else if access == .changing,
                  let version = MemoTrash(store: directory).versions().last(where: { $0.memo.id == id && $0.edit == .delete }),
                  !FileManager.default.fileExists(atPath: filePath(of: version.memo)),
                  let restored = try? bringBack(version, into: &index),
                  let position = index.memos.firstIndex(where: { $0.id == restored.id }) {
            index.replace(at: position, with: merge.applied(to: restored))
        } else if let arriving = arrivingMemo(id, merge) {
            index.append(arriving)
        }
        return nil
    }

    /// Memo `id`, whose changes came ahead of its audio, as they say it is, ``Memo/State/syncing``: when its last audio
    /// change says what the file is, and the file is not here yet, or is smaller (a copy under way).
    private func arrivingMemo(_ id: String, _ merge: MemoMerge) -> Memo? {
        guard let audio = merge.audio, let format = AudioFileFormat(fileExtension: FilePath(audio.fileName).extension ?? "")
        else { return nil }
        if let size = FileManager.default.sizeOfItem(atPath: directoryPath + "/" + audio.fileName), size >= audio.sizeBytes { return nil }
        let silence = Array(repeating: AudioLevels.floor, count: max(0, audio.channels))
        let memo = Memo(
            id: id, title: "Untitled", createdAt: merge.winners[.audio]?.madeAt ?? Date(), duration: audio.duration, fileName: audio.fileName,
            format: format, sampleRate: audio.sampleRate, channels: audio.channels, sizeBytes: audio.sizeBytes,
            peakDBFS: silence, averageDBFS: silence, state: .syncing)
        let arriving = merge.applied(to: memo)
        return arriving.isWellFormed ? arriving : nil
    }

    /// `memo` with its audio's facts read again when its file is not the size the index has (a sync tool brought
    /// another machine's trim); a recovered memo whose recording another machine finished is complete.
    private func reread(_ memo: Memo, access: Access) -> Memo {
        let path = filePath(of: memo)
        guard FileManager.default.sizeOfItem(atPath: path) != memo.sizeBytes,
              let facts = try? AudioFileFacts(url: URL(filePath: path, directoryHint: .notDirectory))
        else { return memo }
        if access == .changing { keepWaveform(facts.waveform, of: memo.id) }
        var reread = facts.memo(id: memo.id, title: memo.title, createdAt: memo.createdAt, fileName: memo.fileName, state: .complete)
        (reread.artist, reread.album, reread.comment, reread.markers) = (memo.artist, memo.album, memo.comment, memo.markers)
        return reread
    }

    /// `memo` as its file, replaced and now of `size` bytes, is: of another size only (its tags changed, as another
    /// machine's rename leaves it), or read again when its audio is another (a trim).
    func replaced(_ memo: Memo, size: Int64, access: Access) -> Memo {
        if let file = try? AudioFile(forReading: fileURL(of: memo)), abs(file.duration - memo.duration) < 0.001 {
            var resized = memo
            resized.sizeBytes = size
            return resized
        }
        return reread(memo, access: access)
    }

    /// Moves the audio of `memo`, deleted on another machine, to the trash as a delete here does, unless the trash's
    /// last version of it is its delete already (a sync tool brought that machine's); when it cannot be kept, the
    /// audio stays.
    private func moveToTrash(_ memo: Memo) {
        let trash = MemoTrash(store: directory)
        let path = filePath(of: memo)
        if trash.versions().last(where: { $0.memo.id == memo.id })?.edit != .delete {
            guard (try? trash.keep(memo, file: path, waveform: waveformPath(of: memo.id), before: .delete)) != nil else { return }
        }
        for leftover in [path, titlePath(of: memo.id), waveformPath(of: memo.id), markersPath(of: memo.id)] {
            FileNames.removeIgnoringFailure(leftover)
        }
    }

    /// Merges the Syncthing conflict copy `copy` of the change file `original` and removes it: of two different files
    /// of one name, the one whose bytes sort last is kept, the same on every machine. Returns whether it merged one.
    private func mergeConflictCopy(_ copy: String, into original: String) -> Bool {
        let copyPath = directoryPath + "/" + copy
        let originalPath = directoryPath + "/" + original
        guard MemoEditRecord.read(at: copyPath, named: original) != nil, let copyBytes = try? DurableFile.contents(of: copyPath) else {
            // Not an edit: a copy of a damaged or partial file, which the original makes whole.
            FileNames.removeIgnoringFailure(copyPath)
            return false
        }
        let originalBytes = MemoEditRecord.read(at: originalPath, named: original) != nil ? try? DurableFile.contents(of: originalPath) : nil
        if originalBytes.map({ $0.lexicographicallyPrecedes(copyBytes) }) ?? true {
            guard (try? DurableFile.write(copyBytes, replacing: originalPath, permissions: [.ownerReadWrite], syncing: true)) != nil else { return false }
        }
        FileNames.removeIgnoringFailure(copyPath)
        return true
    }

    /// Writes the edits that `index`'s tracked changes made (see ``MemoIndex/beginTracking()``), each in its own
    /// file, with the clock one past the highest seen: a memo added, or whose recording finished, sets every field; one
    /// taken out is deleted; one changed sets what changed; one brought back from the trash is undeleted, and takes the
    /// fields the store's changes give it. A recording running sets nothing until it is finished.
    ///
    /// - Throws: ``MemoStoreError/stateUnusable(path:reason:)`` without a machine id,
    ///   ``MemoStoreError/indexWriteFailed(path:reason:)`` when an edit cannot be written.
    func writeLocalEdits(of index: inout MemoIndex, sync: inout SyncPass) throws(MemoStoreError) {
        guard let tracked = index.tracked, !(tracked.originals.isEmpty && tracked.added.isEmpty) else { return }
        let ids = Set(tracked.originals.keys).union(tracked.added)
        var current: [String: Memo] = [:]
        for memo in index.memos where ids.contains(memo.id) { current[memo.id] = memo }
        let clock = sync.state.clock + 1
        var records: [MemoEditRecord] = []
        var restored: Set<String> = []
        var machine: String?
        for id in ids.sorted() {
            let now = current[id]
            let before = tracked.originals[id]
            if now?.state == .recording { continue }
            let fields: [MemoEditRecord.Field]
            if now == nil {
                guard let before, before.state != .recording else { continue }
                fields = [.deleted]
            } else if let before, let now, before.state != .recording {
                fields = Self.changedFields(from: before, to: now)
            } else if before == nil, sync.folded(in: local).contains(where: { $0.hasPrefix(id + ".") }) {
                // Brought back from the trash: undeleted, with its fields as the store's changes have them (another
                // machine may have renamed it since the version kept here).
                fields = [.audio, .deleted]
                restored.insert(id)
            } else {
                fields = MemoEditRecord.Field.allCases
            }
            guard !fields.isEmpty, let memo = now ?? before else { continue }
            if machine == nil { machine = try local.machineID() }
            records.append(MemoEditRecord(of: memo, fields: fields, deleted: now == nil, clock: clock, machine: machine!))
        }
        guard !records.isEmpty else { return }
        do {
            for record in records { try write(record, syncing: true) }
            try DurableFile.syncDirectory(containing: directoryPath + "/.")
        } catch {
            throw .indexWriteFailed(path: directoryPath, reason: "\(error)")
        }
        sync.state.clock = clock
        sync.setFolded(sync.folded(in: local).union(records.map(\.fileName)), in: local)
        for id in restored.sorted() {
            let names = sync.folded(in: local).filter { $0.hasPrefix(id + ".") }
            _ = fold(names.compactMap { MemoEditRecord.read(at: directoryPath + "/" + $0, named: $0) }, of: id, into: &index,
                     keepingUnrecorded: false, access: .changing)
        }
    }

    /// The fields of a memo that differ between `before` and `after`.
    private static func changedFields(from before: Memo, to after: Memo) -> [MemoEditRecord.Field] {
        var fields: [MemoEditRecord.Field] = []
        if before.title != after.title { fields.append(.title) }
        if before.createdAt != after.createdAt { fields.append(.createdAt) }
        if before.artist != after.artist { fields.append(.artist) }
        if before.album != after.album { fields.append(.album) }
        if before.comment != after.comment { fields.append(.comment) }
        if before.markers != after.markers { fields.append(.markers) }
        if before.fileName != after.fileName || before.sizeBytes != after.sizeBytes || before.duration != after.duration {
            fields.append(.audio)
        }
        return fields
    }

    /// Writes `record` in its file, atomically (a hidden temporary file beside it, renamed), 0600.
    private func write(_ record: MemoEditRecord, syncing: Bool) throws {
        let data = try MemoEditRecord.encoder.encode(record)
        try DurableFile.write(Array(data), replacing: directoryPath + "/" + record.fileName, permissions: [.ownerReadWrite], syncing: syncing)
    }

    /// Saves this machine's state of the store, with the identities of the index as it is now saved.
    func finishSync(_ sync: SyncPass) {
        var state = sync.state
        state.index = LocalState.identity(of: indexURL.path)
        state.journal = LocalState.identity(of: journalPath)
        if sync.foldedChanged, let names = sync.foldedNames { local.saveFolded(names) }
        if state != sync.loaded { local.save(state) }
    }
}

extension MemoStore {
    /// The edits of each memo in the store, by id, as its files have them.
    private func allEdits() throws(MemoStoreError) -> [String: [MemoEditRecord]] {
        let listing: DirectoryListing.Listing
        do {
            listing = try DirectoryListing.scan(at: directoryPath)
        } catch {
            throw .directoryUnusable(path: directoryPath, reason: "cannot read it (\(error))")
        }
        var edits: [String: [MemoEditRecord]] = [:]
        for name in listing.otherNames {
            guard let parsed = MemoEditRecord.parse(fileName: name),
                  let record = MemoEditRecord.read(at: directoryPath + "/" + name, named: name)
            else { continue }
            edits[parsed.id, default: []].append(record)
        }
        return edits
    }

    /// Every title `memo` was given, on any machine, in the order the store settles them: the last is its title, the
    /// others lost to a later rename (made after them, or at once on another machine).
    ///
    /// - Throws: ``MemoStoreError/directoryUnusable(path:reason:)`` when the store cannot be read.
    public func titleHistory(of memo: Memo) throws(MemoStoreError) -> [TitleChange] {
        let listing: [String]
        do {
            listing = try FileManager.default.contentsOfDirectory(atPath: directoryPath).filter { $0.hasPrefix(memo.id + ".") }
        } catch {
            throw .directoryUnusable(path: directoryPath, reason: "cannot read it (\(Self.reason(error)))")
        }
        return MemoMerge(listing.compactMap { MemoEditRecord.read(at: directoryPath + "/" + $0, named: $0) }).titles
    }

    /// How the store stands as this machine shares it with others (see ``SyncStatus``); reads every change file.
    ///
    /// - Throws: what ``memos()`` throws, and ``MemoStoreError/stateUnusable(path:reason:)`` without a machine id.
    public func syncStatus() throws(MemoStoreError) -> SyncStatus {
        let memos = try memos()
        let edits = try allEdits()
        var latest: [String: MemoEditRecord] = [:]
        for record in edits.values.joined() where record.clock > 0 {
            if latest[record.machine].map({ $0.stamp < record.stamp }) ?? true { latest[record.machine] = record }
        }
        return SyncStatus(
            machine: try local.machineID(),
            memos: Dictionary(grouping: memos, by: \.state).mapValues(\.count),
            tombstones: edits.values.filter { MemoMerge($0).isDeleted }.count,
            conflictsMerged: local.load().conflictsMerged,
            machines: latest.values.sorted { $0.machine < $1.machine }.map {
                SyncStatus.Machine(id: $0.machine, lastClock: $0.clock, lastChangeAt: $0.madeAt)
            })
    }
}

/// How a store stands as this machine shares it with others: `voicememo sync status`.
public struct SyncStatus: Equatable, Sendable {
    /// A machine that changed the store.
    public struct Machine: Equatable, Sendable {
        /// Its id: 16 hexadecimal digits.
        public var id: String
        /// The clock of its last change: a change made later has a higher one.
        public var lastClock: Int
        /// When it made its last change, by its own clock.
        public var lastChangeAt: Date
    }

    /// This machine's id, kept in the state directory (see ``MemoStore/defaultStateDirectory(environment:)``).
    public var machine: String
    /// The memos listed, by state.
    public var memos: [Memo.State: Int]
    /// The memos whose last change is a delete: what `voicememo trash` shows and `restore` brings back on any machine.
    public var tombstones: Int
    /// The sync tools' conflict copies of change files this machine merged and removed, all told.
    public var conflictsMerged: Int
    /// Each machine that changed the store (its migration aside), by id, with its last change.
    public var machines: [Machine]
}
