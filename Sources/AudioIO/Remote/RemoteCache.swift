import FoundationEssentials
import Synchronization
import SystemEdge
import SystemPackage

/// The bytes of `http` and `https` audio kept on the disk between runs: playing an address again, or importing what
/// was played, downloads nothing that is already here.
///
/// ```swift
/// let cache = RemoteCache(directory: cacheFolder, capacity: 200_000_000)
/// let player = try AudioPlayer(contentsOf: URL(string: "https://example.com/talk.opus")!, cache: cache)
/// ```
///
/// It keeps byte ranges per address: whatever was downloaded, in whatever order a player's seeks asked for it. Each
/// address is checked with the server before its bytes are used again: a range request carries `If-Range` with the
/// file's `ETag` (or `Last-Modified`), and a file held whole is asked after with `If-None-Match` (or
/// `If-Modified-Since`), which costs no body when it has not changed. A file that changed on the server is dropped and
/// downloaded anew. When the server cannot be reached, a file held whole plays from here; when it refuses the request
/// (401, 403: a sign-in missing or expired), it does not.
///
/// It holds at most ``capacity`` bytes: past that, the addresses used least recently go first, except those a process
/// is reading now. ``items`` lists what it holds. Several processes may use one cache at once, and any of them may be killed at any moment: a range
/// is listed only once its bytes are synced to the disk, the list (`index.json`) is replaced in one step under a lock
/// (`flock(2)`), and a file that another process still reads is never removed from under it. Removing the directory
/// empties the cache (``removeAll()`` does it with the lock held).
///
/// **Thread safety**: every member may be used from any thread.
public final class RemoteCache: Sendable {
    /// The cache of this user: `$XDG_CACHE_HOME/voicememo/http`, else `~/.cache/voicememo/http`, holding at most
    /// 1 GiB unless its ``capacity`` is set.
    public static let shared = RemoteCache(directory: defaultDirectory())

    /// The directory that holds the bytes (`*.data`), the list of what they are (`index.json`) and its lock.
    public let directory: URL

    /// The most bytes it keeps; the least recently used addresses go first beyond it.
    ///
    /// Setting it (a negative value counts as 0) takes effect as the next bytes are listed: a program sets the cap of
    /// ``shared`` from its user's setting before it plays.
    public var capacity: Int64 {
        get { storedCapacity.load(ordering: .relaxed) }
        set { storedCapacity.store(max(newValue, 0), ordering: .relaxed) }
    }

    private let storedCapacity: Atomic<Int64>

    /// A cache in `directory` (created, mode 0700, when first written) of at most `capacity` bytes.
    public init(directory: URL, capacity: Int64 = 1 << 30) {
        self.directory = directory
        storedCapacity = Atomic(max(capacity, 0))
    }

    /// `$XDG_CACHE_HOME/voicememo/http`, else `$HOME/.cache/voicememo/http`.
    static func defaultDirectory() -> URL {
        UserDirectories().cache.appendingPathComponent("voicememo").appendingPathComponent("http")
    }

    /// The bytes it holds now, over every address.
    public var byteCount: Int64 {
        readIndex().entries.reduce(0) { $0 + $1.ranges.byteCount }
    }

    /// The addresses it holds bytes of, most recently used first.
    public var addresses: [URL] {
        readIndex().entries.sorted { $0.lastUsed > $1.lastUsed }.compactMap { URL(string: $0.url) }
    }

    /// What the cache holds of one address, as ``items`` lists it.
    public struct Item: Sendable, Equatable {
        /// The address, as it was given.
        public var url: URL
        /// The file's length on the server, once the server said it (of a playlist, its own).
        public var length: Int64?
        /// The bytes of the file the cache holds, and of the addresses read as part of it.
        public var loadedBytes: Int64
        /// The disk space its data files take: about ``loadedBytes``, the parts not downloaded taking none.
        public var sizeOnDisk: Int64
        /// When it, or an address read as part of it, was last played, imported or checked with the server.
        public var lastUsed: Date
        /// How many addresses read as part of it (an HLS playlist's segments and the playlists it names) the cache
        /// holds bytes of, listed with it rather than apart.
        public var partCount: Int = 0
    }

    /// What it holds, one item per address that was played or imported, the most recently used first: an HLS
    /// playlist's segments count in their playlist's item, and an address that gave no bytes (a download that failed)
    /// is not listed. Read without the lock, as the list is replaced in one step.
    public var items: [Item] {
        let entries = readIndex().entries
        let listed = Set(entries.filter { $0.partOf == nil }.map(\.url))
        var items: [String: Item] = [:]
        for entry in entries {
            // A part whose playlist was evicted first counts as an address of its own.
            let owner = entry.partOf.flatMap { listed.contains($0) ? $0 : nil } ?? entry.url
            guard let url = URL(string: owner) else { continue }
            let isPart = owner != entry.url
            var item = items[owner] ?? Item(url: url, length: nil, loadedBytes: 0, sizeOnDisk: 0, lastUsed: .distantPast)
            if !isPart { item.length = entry.length }
            item.loadedBytes += entry.ranges.byteCount
            item.sizeOnDisk += sizeOnDisk(entry.file)
            item.lastUsed = max(item.lastUsed, Date(timeIntervalSince1970: entry.lastUsed))
            if isPart, entry.ranges.byteCount > 0 { item.partCount += 1 }
            items[owner] = item
        }
        return items.values.filter { $0.loadedBytes > 0 || $0.length == 0 }.sorted { $0.lastUsed > $1.lastUsed }
    }

    /// Empties it: every address it holds is forgotten and its bytes removed. A process reading one now goes on with
    /// what it has and keeps nothing more.
    ///
    /// - Returns: The disk space the removed files took. A file a process still reads frees its space when that process
    ///   lets it go.
    /// - Throws: ``AudioFileError`` when the directory cannot be changed.
    @discardableResult
    public func removeAll() throws(AudioFileError) -> Int64 {
        guard FileManager.default.fileExists(atPath: directory.path) else { return 0 }
        let lock = try locked()
        defer { lock.unlock() }
        var index = readIndex()
        let files = index.entries.map(\.file)
        index.entries.removeAll()
        try write(index)
        // A file left is found by the next sweep.
        var freed: Int64 = 0
        for name in files {
            freed += sizeOnDisk(name)
            FileNames.removeIgnoringFailure(path(name))
        }
        sweep(index)
        return freed
    }

    /// Downloads the whole file at `url` through the cache (what it holds is not downloaded again, but checked with
    /// the server) and writes a copy of it to `destination`, a new file (mode 0600), synced: for a program that wants
    /// a file on the disk, e.g. to import it. Every request carries the header fields of `options`.
    ///
    /// - Parameters:
    ///   - url: The `http` or `https` address.
    ///   - options: The header fields and user agent of its requests.
    ///   - destination: Where the copy goes: a file that does not exist yet.
    ///   - progress: Told how far the download has come, on the calling thread, while the call waits for it: whenever
    ///     that changed, at most ten times a second, and once when every byte is here. It must not block for long:
    ///     the call waits for it.
    ///
    /// - Throws: ``AudioFileError``: ``AudioFileError/Reason/downloadFailed(_:)`` when the download fails (or a field
    ///   of `options` cannot be sent),
    ///   ``AudioFileError/Reason/exists`` when `destination` exists, another reason when it cannot be written (then
    ///   nothing is left there).
    public func download(
        _ url: URL, options: AudioAsset.Options = AudioAsset.Options(), to destination: URL,
        progress: ((DownloadProgress) -> Void)? = nil
    ) throws(AudioFileError) {
        let asset = try RemoteAsset.open(url, options: options, cache: self)
        do {
            try asset.loadAll(reporting: progress)
        } catch {
            throw AudioFileError(path: asset.name, reason: .downloadFailed(error))
        }
        let output: FileDescriptor
        do {
            output = try FileDescriptor.open(
                destination.path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: .ownerReadWrite)
        } catch {
            throw AudioFileError(path: destination.path, creating: error as? Errno ?? .ioError)
        }
        do {
            try output.closeAfter {
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                var offset: Int64 = 0
                while true {
                    let count = try buffer.withUnsafeMutableBytes { bytes throws(DownloadError) in try asset.read(at: offset, into: bytes) }
                    if count == 0 { break }
                    try output.writeAll(buffer[..<count])
                    offset += Int64(count)
                }
                try output.sync()
            }
        } catch {
            FileNames.removeIgnoringFailure(destination.path)
            if let failure = error as? DownloadError { throw AudioFileError(path: asset.name, reason: .downloadFailed(failure)) }
            throw AudioFileError(path: destination.path, reason: .writeFailed("\(error)"))
        }
    }

    // MARK: Entries

    /// One address's entry in `index.json`.
    struct Entry: Codable, Equatable {
        /// The address, as given (the key).
        var url: String
        /// The data file's name in the directory: the bytes at their offsets, a sparse file.
        var file: String
        /// The file's length on the server, once known.
        var length: Int64?
        var entityTag: String?
        var lastModified: String?
        /// The bytes of `file` that are synced and may be served.
        var ranges: ByteRanges
        /// Seconds since 1970 of the last use: the least recently used go first.
        var lastUsed: Double
        /// The address this one was read as part of (an HLS playlist, for its segments), which lists it.
        var partOf: String?

        /// Whether it holds the whole file.
        var isComplete: Bool { length.map { ranges.covers(length: $0) } ?? false }
    }

    struct Index: Codable {
        var version = 1
        var entries: [Entry] = []
    }

    /// An address's data file, open for reading and writing, with what the index said of it when it was taken. Held
    /// with a shared lock on the file, which tells other processes it is in use. Closed when released.
    final class Held: @unchecked Sendable {
        let url: String
        let descriptor: FileDescriptor
        /// The data file's name in the cache; `nil` for a private file outside it (the cache could not be used).
        let file: String?
        /// The entry as it was when taken.
        let entry: Entry?

        init(url: String, descriptor: FileDescriptor, file: String?, entry: Entry?) {
            self.url = url
            self.descriptor = descriptor
            self.file = file
            self.entry = entry
        }

        deinit { descriptor.unlockAndClose() }
    }

    /// The data file of `url`, made (empty) when the cache has none; or a private, unlinked file of the temporary
    /// directory when the cache cannot be used (a read-only or full disk): the bytes are then kept for this run only.
    ///
    /// - Throws: ``AudioFileError`` when not even a temporary file can be made.
    func take(_ url: String, partOf: String? = nil) throws(AudioFileError) -> Held {
        do {
            let lock = try locked()
            defer { lock.unlock() }
            var index = readIndex()
            sweep(index)
            var entry: Entry
            if let found = index.entries.firstIndex(where: { $0.url == url }) {
                index.entries[found].lastUsed = Self.now
                if let partOf { index.entries[found].partOf = partOf }
                entry = index.entries[found]
            } else {
                entry = Entry(url: url, file: Self.newFileName(), ranges: ByteRanges(), lastUsed: Self.now, partOf: partOf)
                index.entries.append(entry)
            }
            let descriptor = try openHeld(entry.file)
            do {
                // A data file shorter than what the index lists of it (removed, or cut, by hand) is not believed.
                if let end = entry.ranges.ranges.last?.upperBound, (try? descriptor.stat().size).map({ Int64($0) < end }) ?? true {
                    entry.ranges = ByteRanges()
                    index.entries = index.entries.map { $0.url == url ? entry : $0 }
                }
                try write(index)
            } catch {
                descriptor.unlockAndClose()
                throw error
            }
            return Held(url: url, descriptor: descriptor, file: entry.file, entry: entry)
        } catch {
            return try Self.privateFile(for: url)
        }
    }

    /// Starts `held`'s address over, for a new version of the file on the server: a new, empty data file takes the
    /// old one's place (which goes, unless a process still reads it, whose open file stays readable).
    func renew(_ held: Held) throws(AudioFileError) -> Held {
        guard held.file != nil else { return try Self.privateFile(for: held.url) }
        do {
            let lock = try locked()
            defer { lock.unlock() }
            var index = readIndex()
            var entry = Entry(url: held.url, file: Self.newFileName(), ranges: ByteRanges(), lastUsed: Self.now)
            var old: String?
            if let found = index.entries.firstIndex(where: { $0.url == held.url }) {
                old = index.entries[found].file
                entry.partOf = index.entries[found].partOf
                index.entries[found] = entry
            } else {
                index.entries.append(entry)
            }
            let descriptor = try openHeld(entry.file)
            do {
                try write(index)
            } catch {
                descriptor.unlockAndClose()
                throw error
            }
            // Once the index no longer lists it: a kill between the two leaves an orphan (for the next sweep), never a
            // listed file missing.
            if let old { FileNames.removeIgnoringFailure(path(old)) }
            return Held(url: held.url, descriptor: descriptor, file: entry.file, entry: entry)
        } catch {
            return try Self.privateFile(for: held.url)
        }
    }

    /// Lists `ranges` of `held`'s file, whose bytes the caller has synced, with the file's length and validators; then
    /// makes room within ``capacity``. Returns the ranges the index lists for the file now (other processes' included),
    /// or `nil` when the file is no longer the address's (the cache was emptied, or another process found a new
    /// version): the caller keeps its bytes to itself from then on.
    func commit(
        _ held: Held, ranges: ByteRanges, length: Int64?, entityTag: String?, lastModified: String?
    ) -> ByteRanges? {
        guard let file = held.file, let lock = try? locked() else { return nil }
        defer { lock.unlock() }
        var index = readIndex()
        guard let found = index.entries.firstIndex(where: { $0.url == held.url && $0.file == file }) else { return nil }
        index.entries[found].ranges.formUnion(ranges)
        index.entries[found].length = length ?? index.entries[found].length
        index.entries[found].entityTag = entityTag
        index.entries[found].lastModified = lastModified
        index.entries[found].lastUsed = Self.now
        let listed = index.entries[found].ranges
        let evicted = evict(&index)
        guard (try? write(index)) != nil else { return nil }
        for name in evicted { FileNames.removeIgnoringFailure(path(name)) }
        return listed
    }

    /// Removes `held`'s entry, while it lists no byte: an address found to be a live stream, which is never cached.
    func forget(_ held: Held) {
        guard let file = held.file, let lock = try? locked() else { return }
        defer { lock.unlock() }
        var index = readIndex()
        guard let found = index.entries.firstIndex(where: { $0.url == held.url && $0.file == file }),
              index.entries[found].ranges.isEmpty else { return }
        index.entries.remove(at: found)
        guard (try? write(index)) != nil else { return }
        FileNames.removeIgnoringFailure(path(file))
    }

    /// The entry the index lists for `held`'s file now, read without the lock (the index is replaced in one step).
    func current(_ held: Held) -> Entry? {
        guard let file = held.file else { return nil }
        return readIndex().entries.first { $0.url == held.url && $0.file == file }
    }

    // MARK: The directory

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private var indexPath: String { path("index.json") }

    /// The disk space the data file `name` takes; 0 when it is gone.
    private func sizeOnDisk(_ name: String) -> Int64 {
        (try? FilePath(path(name)).stat())?.sizeAllocated ?? 0
    }

    private static var now: Double { Date().timeIntervalSince1970 }

    private static func newFileName() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36) + ".data"
    }

    /// The lock on the index: `lock` in the directory, which is created (0700) first if need be.
    /// The exclusive lock on the index, waited for. Under it the index is read, changed and replaced.
    private func locked() throws(AudioFileError) -> FileLock {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AudioFileError(path: directory.path, reason: .writeFailed("\(error)"))
        }
        let path = path("lock")
        do {
            return try FileLock(path: path, creating: true, wait: true)
        } catch .cannotOpen(let error) {
            throw AudioFileError(path: path, opening: error)
        } catch {
            throw AudioFileError(path: path, reason: .writeFailed("\(error)"))
        }
    }

    /// The data file `name`, made (empty, mode 0600) when there is none, open to be read and written and held: its
    /// shared lock, waited for, tells other processes it is in use.
    private func openHeld(_ name: String) throws -> FileDescriptor {
        let descriptor = try FileDescriptor.open(
            path(name), .readWrite, options: [.create, .closeOnExec, .noFollow], permissions: .ownerReadWrite)
        do {
            try descriptor.lock(.shared, wait: true)
        } catch {
            try? descriptor.close()
            throw error
        }
        return descriptor
    }

    /// The index as last written whole; empty when there is none or it cannot be read (its data files then go as
    /// orphans).
    private func readIndex() -> Index {
        guard let bytes = try? DurableFile.contents(of: indexPath),
              let index = try? JSONDecoder().decode(Index.self, from: Data(bytes))
        else { return Index() }
        return index
    }

    /// Replaces the index in one step, synced, and the directory entry with it. Under the lock.
    private func write(_ index: Index) throws(AudioFileError) {
        do {
            let bytes = try JSONEncoder().encode(index)
            try DurableFile.write(bytes, replacing: indexPath, permissions: .ownerReadWrite, syncing: true)
            try DurableFile.syncDirectory(containing: indexPath)
        } catch {
            throw AudioFileError(path: indexPath, reason: .writeFailed("\(error)"))
        }
    }

    /// Takes the least recently used entries that no process holds out of `index` until the rest fit in ``capacity``;
    /// returns their data files, to be removed once the index without them is written. Under the lock, which every
    /// process takes to hold a file: none can start holding one of them meanwhile.
    private func evict(_ index: inout Index) -> [String] {
        var total = index.entries.reduce(0) { $0 + $1.ranges.byteCount }
        guard total > capacity else { return [] }
        var evicted: [String] = []
        for entry in index.entries.sorted(by: { $0.lastUsed < $1.lastUsed }) {
            guard total > capacity else { break }
            guard !isHeld(entry.file) else { continue }
            index.entries.removeAll { $0.file == entry.file }
            evicted.append(entry.file)
            total -= entry.ranges.byteCount
        }
        return evicted
    }

    /// Whether a process holds the data file `name` (its shared lock); a file that cannot be locked counts as held.
    private func isHeld(_ name: String) -> Bool {
        guard let descriptor = try? FileDescriptor.open(path(name), .readOnly, options: [.closeOnExec, .noFollow]) else { return false }
        defer { descriptor.unlockAndClose() }
        return (try? descriptor.lock(.exclusive, wait: false)) == nil
    }

    /// Removes what a killed process may have left: data files the index does not list and no one holds, and
    /// temporary copies of the index. Under the lock.
    private func sweep(_ index: Index) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let listed = Set(index.entries.map(\.file))
        for name in names {
            if name.hasSuffix(".data"), !listed.contains(name), !isHeld(name) {
                FileNames.removeIgnoringFailure(path(name))
            } else if name.hasPrefix(".index.json."), name.hasSuffix(".tmp") {
                FileNames.removeIgnoringFailure(path(name))
            }
        }
    }

    /// An unlinked file of the temporary directory: bytes for this run only.
    private static func privateFile(for url: String) throws(AudioFileError) -> Held {
        let directory = FileManager.default.temporaryDirectory.path
        do {
            let descriptor = try FileDescriptor.openUnnamed(in: directory, prefix: "voicememo-download-")
            return Held(url: url, descriptor: descriptor, file: nil, entry: nil)
        } catch {
            throw AudioFileError(path: directory, creating: error)
        }
    }
}
