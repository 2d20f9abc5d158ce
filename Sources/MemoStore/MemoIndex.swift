import AudioIO
import FoundationEssentials
import Synchronization
import SystemEdge
import SystemPackage

/// The index, in this machine's state of the store (see ``LocalState``): `memos.json`, the list of memos as it was last written whole, with a schema version so that later
/// versions can migrate it and a generation that names this writing of it; and `memos.journal`, the changes made
/// since, a record per memo (see ``MemoJournal``). In a store of a thousand memos or more, a change appends to the
/// journal; once the journal holds enough changes, `memos.json` is written whole again, with every change in it, and
/// a new journal starts. Smaller stores have `memos.json` written whole at each change.
///
/// The audio files are the truth; the index is a cache of their facts and titles that can always be
/// rebuilt from them (``MemoStore`` does so when it is missing or unreadable).
struct MemoIndex: Codable {
    /// The schema this code writes. Schema 1 (no generation, no journal) and 2 (memos without loudness, tags and
    /// markers, which its journal's records lack) are read, and `memos.json` is written whole as 3 at the first change;
    /// a voicememo that knows only 1 leaves a store of 2 or 3 alone rather than miss its journal, and one that knows 2
    /// leaves a store of 3 alone rather than stop at a journal record it cannot read.
    static let currentSchemaVersion = 3

    var schemaVersion = MemoIndex.currentSchemaVersion
    /// Which writing of `memos.json` this is: 16 hexadecimal digits, random; `nil` in schema 1.
    var generation: String?
    /// The machine whose voicememo wrote `memos.json` (see ``LocalState/machineID()``); `nil` when a voicememo that
    /// writes no change files wrote it. An index a sync tool brought from another machine says what that machine had
    /// folded in; one of this machine or of none may hold changes that no change file has (an older voicememo's).
    var machine: String?
    /// The memos, in the order they were added; changed through ``put(_:)``, ``replace(at:with:)``, ``append(_:)``
    /// and ``remove(atPositions:)``, which note each change.
    private(set) var memos: [Memo] = []
    /// The changes made since the index was read, in order: what a save appends to the journal, with no comparison
    /// of 50,000 memos before and after.
    private(set) var changes: [MemoJournal.Change] = []
    /// Since ``beginTracking()``: each memo changed or taken out as it was before, and the ids of those added. What
    /// the store turns into change files (see ``MemoEditRecord``).
    private(set) var tracked: (originals: [String: Memo], added: Set<String>)?

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, generation, machine, memos
    }

    init(schemaVersion: Int = MemoIndex.currentSchemaVersion, generation: String? = nil, memos: [Memo] = []) {
        self.schemaVersion = schemaVersion
        self.generation = generation
        self.memos = memos
    }

    /// Puts `memo` in place of the one with its id, or after the others when there is none.
    mutating func put(_ memo: Memo) {
        if let position = memos.firstIndex(where: { $0.id == memo.id }) {
            replace(at: position, with: memo)
        } else {
            append(memo)
        }
    }

    /// Notes from now on what each change does to the memos, for ``tracked``.
    mutating func beginTracking() {
        tracked = ([:], [])
    }

    /// Notes `memo` as it was before a change, if it is the first.
    private mutating func track(before memo: Memo) {
        guard tracked != nil, tracked?.originals[memo.id] == nil, tracked?.added.contains(memo.id) == false else { return }
        tracked?.originals[memo.id] = memo
    }

    /// Puts `memo` in place of the one at `position`.
    mutating func replace(at position: Int, with memo: Memo) {
        track(before: memos[position])
        if memos[position].id != memo.id { changes.append(.remove(id: memos[position].id)) }
        memos[position] = memo
        changes.append(.put(memo))
    }

    /// Adds `memo` after the others.
    mutating func append(_ memo: Memo) {
        if tracked != nil, tracked?.originals[memo.id] == nil { tracked?.added.insert(memo.id) }
        memos.append(memo)
        changes.append(.put(memo))
    }

    /// Takes out the memos at `positions`.
    mutating func remove(atPositions positions: [Int]) {
        guard !positions.isEmpty else { return }
        for position in positions {
            track(before: memos[position])
            changes.append(.remove(id: memos[position].id))
        }
        memos.removeSubranges(RangeSet(positions, within: memos))
    }

    /// Takes out the memos with these ids.
    mutating func remove(ids: Set<String>) {
        remove(atPositions: memos.indices.filter { ids.contains(memos[$0].id) })
    }

    /// Makes the journal's `changes`, as read, without noting them: they are written already.
    fileprivate mutating func applyWritten(_ changes: [MemoJournal.Change]) {
        MemoJournal.apply(changes, to: &memos)
    }

    /// ``generation`` as the number the journal records.
    var generationNumber: UInt64? { generation.flatMap { UInt64($0, radix: 16) } }

    /// Where the journal of a loaded index stands: a writer appends after ``length`` bytes.
    struct JournalPosition: Equatable {
        var generation: UInt64
        /// The bytes of whole records, 0 when there is no journal yet.
        var length: Int64
        /// The records in it.
        var records: Int
    }

    /// The memos from which on a change goes into the journal: below, `memos.json` is written whole each time, which
    /// costs a millisecond or so, and stays all there is to read for another program.
    static let journalingMemoCount = 1000

    /// A journal this long is folded into `memos.json`: 512 records, or an eighth of the memos, whichever is more
    /// (at 50,000 memos, one write of `memos.json` in 6,250 changes).
    static func journalLimit(memoCount: Int) -> Int { max(512, memoCount / 8) }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// What reading the index file found.
    enum Loaded {
        case missing
        /// The file is there but cannot be read (its permissions, a disk error): not damage, and not to be rebuilt.
        case inaccessible(Errno)
        /// The file was read and is not an index: damage, to be rebuilt from the audio files.
        case unreadable
        case newerSchema(Int)
        /// The index with its journal's changes, the identity of the store directory for which its cache vouches
        /// that it lists exactly the audio files there (see ``MemoIndexCache``), and where its journal stands (`nil`
        /// when the next change must write `memos.json` whole: it has no generation, or its journal is another's).
        case index(MemoIndex, vouchedDirectory: MemoIndexCache.Identity?, journal: JournalPosition?)
    }

    /// The index this process read last, and which files it came from: read again before they change (a command
    /// that finds a memo, then changes it), it costs a look at the files rather than a read.
    final class LastRead: Sendable {
        /// The identities of `memos.json`, of its cache and of the journal when they were read.
        fileprivate struct Source: Equatable {
            var index: MemoIndexCache.Identity?
            var cache: MemoIndexCache.Identity?
            var journal: MemoIndexCache.Identity?

            init(_ url: URL) {
                index = MemoIndexCache.Identity(path: url.path)
                cache = MemoIndexCache.Identity(path: MemoIndex.cachePath(beside: url))
                journal = MemoIndexCache.Identity(path: MemoIndex.journalPath(beside: url))
            }
        }

        fileprivate let value = Mutex<(source: Source, loaded: Loaded)?>(nil)
    }

    /// Reads the index at `url` and its journal, or takes what `lastRead` holds when neither has changed since.
    ///
    /// With `taking`, what `lastRead` holds is handed over and forgotten: a writer changes the memos in place, with no
    /// copy of 50,000 of them, and ``remember(_:vouchedDirectory:journal:beside:in:)`` what it saved.
    static func load(from url: URL, remembering lastRead: LastRead, taking: Bool = false) -> Loaded {
        let source = LastRead.Source(url)
        if source.index != nil {
            let last = lastRead.value.withLock { value in
                defer { if taking { value = nil } }
                return value
            }
            if let last, last.source == source { return last.loaded }
        }
        let loaded = load(from: url)
        // Remembered only if the index and its journal did not change while they were read; the cache may have, made
        // from the JSON just now.
        let after = LastRead.Source(url)
        if !taking, case .index = loaded, after.index == source.index, after.journal == source.journal {
            lastRead.value.withLock { $0 = (after, loaded) }
        }
        return loaded
    }

    /// Remembers in `lastRead` the index at `url` as a writer has just saved it, with its journal at `journal`.
    static func remember(
        _ index: MemoIndex, vouchedDirectory: MemoIndexCache.Identity?, journal: JournalPosition, beside url: URL, in lastRead: LastRead
    ) {
        var saved = index
        saved.changes = []
        saved.tracked = nil
        lastRead.value.withLock { $0 = (LastRead.Source(url), .index(saved, vouchedDirectory: vouchedDirectory, journal: journal)) }
    }

    /// Reads the index at `url` and its journal.
    private static func load(from url: URL) -> Loaded {
        let journalPath = Self.journalPath(beside: url)
        // A journal of another generation may be the new one of a `memos.json` replaced since it was read.
        for attempt in 1...3 {
            let loaded = loadWritten(from: url)
            guard case .index(var index, let vouched, _) = loaded, let generation = index.generationNumber else { return loaded }
            switch MemoJournal.read(at: journalPath, generation: generation) {
            case .missing:
                return .index(index, vouchedDirectory: vouched, journal: JournalPosition(generation: generation, length: 0, records: 0))
            case .otherGeneration:
                if attempt < 3 { continue }
                return .index(index, vouchedDirectory: vouched, journal: nil)
            case .contents(let contents):
                index.applyWritten(contents.changes)
                return .index(index, vouchedDirectory: vouched, journal: JournalPosition(
                    generation: generation, length: contents.length, records: contents.changes.count))
            }
        }
        return .unreadable
    }

    /// `memos.json` as it was last written whole: from its binary cache when that was made from this very file (see
    /// ``MemoIndexCache``), else from the JSON, which then becomes the cache.
    private static func loadWritten(from url: URL) -> Loaded {
        let cache = cachePath(beside: url)
        let identity = MemoIndexCache.Identity(path: url.path)
        if let identity, let cached = MemoIndexCache.read(at: cache, for: identity),
           (1...currentSchemaVersion).contains(cached.index.schemaVersion) {
            return .index(cached.index, vouchedDirectory: cached.vouchedDirectory, journal: nil)
        }
        let data: Data
        do throws(Errno) {
            data = Data(try DurableFile.contents(of: url.path))
        } catch .noSuchFileOrDirectory {
            return .missing
        } catch {
            return .inaccessible(error)
        }
        // One pass in the usual case; the version alone is read only when the whole does not decode, to
        // tell a newer schema from damage.
        if let index = try? decoder.decode(MemoIndex.self, from: data) {
            guard index.schemaVersion <= currentSchemaVersion else { return .newerSchema(index.schemaVersion) }
            guard index.schemaVersion >= 1 else { return .unreadable }
            // Cached only if the file did not change while it was read (an editor may be writing it).
            if let identity, MemoIndexCache.Identity(path: url.path) == identity {
                MemoIndexCache.write(index, at: cache, for: identity)
            }
            return .index(index, vouchedDirectory: nil, journal: nil)
        }
        struct Version: Decodable { let schemaVersion: Int }
        guard let version = try? decoder.decode(Version.self, from: data) else { return .unreadable }
        return version.schemaVersion > currentSchemaVersion ? .newerSchema(version.schemaVersion) : .unreadable
    }

    /// The machine whose voicememo wrote the `memos.json` at `url`, read from the JSON itself (its binary cache does not
    /// keep it); nil when none is named (a voicememo that wrote no change files wrote it) or it cannot be read.
    static func writer(of url: URL) -> String? {
        struct Writer: Decodable { let machine: String? }
        guard let bytes = try? DurableFile.contents(of: url.path) else { return nil }
        return (try? decoder.decode(Writer.self, from: Data(bytes)))?.machine
    }

    fileprivate static func cachePath(beside url: URL) -> String {
        url.deletingLastPathComponent().appendingPathComponent(MemoIndexCache.fileName).path
    }

    fileprivate static func journalPath(beside url: URL) -> String {
        url.deletingLastPathComponent().appendingPathComponent(MemoJournal.fileName).path
    }

    /// Records in the cache of the index at `url`, if it is still the cache of that very file, that the store directory
    /// as it was when it had `directory` holds exactly the audio files the index lists.
    static func vouch(for directory: MemoIndexCache.Identity, beside url: URL) {
        guard let identity = MemoIndexCache.Identity(path: url.path) else { return }
        MemoIndexCache.vouch(for: directory, at: cachePath(beside: url), for: identity)
    }

    /// Saves the index's ``changes`` at `url`, whose journal is at `journal`: appended to the journal and synced, or,
    /// when `wholly`, when the journal is full or cannot be used, or the index is of an older schema (which a voicememo
    /// of that schema would read with a journal it cannot read to the end), `memos.json` written whole (a temporary file beside
    /// it, 0600, synced, renamed over it) with a new generation, and a new journal started. Returns where the
    /// journal stands then, `nil` when it was not appended to.
    @discardableResult
    func save(to url: URL, journal: JournalPosition?, wholly: Bool) throws(MemoStoreError) -> JournalPosition? {
        do {
            if !wholly, schemaVersion == Self.currentSchemaVersion, let journal, journal.generation == generationNumber,
               memos.count >= Self.journalingMemoCount,
               journal.records + changes.count <= Self.journalLimit(memoCount: memos.count) {
                let path = Self.journalPath(beside: url)
                if journal.length == 0 { try MemoJournal.start(at: path, generation: journal.generation) }
                return JournalPosition(
                    generation: journal.generation,
                    length: try MemoJournal.append(changes, at: path, after: max(journal.length, Int64(MemoJournal.headerLength))),
                    records: journal.records + changes.count)
            }
            try writeWhole(to: url)
            return nil
        } catch {
            throw .indexWriteFailed(path: url.path, reason: "\(error)")
        }
    }

    /// Writes `memos.json` whole with a new generation, then an empty journal for it if the store keeps one, then its
    /// cache.
    private func writeWhole(to url: URL) throws {
        var index = self
        index.schemaVersion = Self.currentSchemaVersion
        let generation = UInt64.random(in: 1...UInt64.max)
        index.generation = String(generation, radix: 16)
        let data = try Self.encoder.encode(index)
        // The old cache goes first: should the new one not be written, none is left to name an inode that a
        // later index might reuse.
        let cache = Self.cachePath(beside: url)
        FileNames.removeIgnoringFailure(cache)
        try DurableFile.write(data, replacing: url.path, permissions: [.ownerReadWrite], syncing: true)
        // A reader that read the old `memos.json` finds this journal of another generation, and reads again. Without
        // a journal before, a reader of the old `memos.json` had all of its memos. A store that keeps one gets it now,
        // with `memos.json`, so that the changes to come leave the directory as it is.
        let journal = Self.journalPath(beside: url)
        if memos.count >= Self.journalingMemoCount || FileManager.default.fileExists(atPath: journal) {
            try MemoJournal.start(at: journal, generation: generation)
        }
        try DurableFile.syncDirectory(containing: url.path)
        // Taken after the rename, which sets the change time.
        if let identity = MemoIndexCache.Identity(path: url.path) { MemoIndexCache.write(index, at: cache, for: identity) }
    }
}
