import AudioIO
import FoundationEssentials
import SystemPackage

/// `memos.json`: the list of memos, with a schema version so that later versions can migrate it.
///
/// The audio files are the truth; the index is a cache of their facts and titles that can always be
/// rebuilt from them (``MemoStore`` does so when it is missing or unreadable).
struct MemoIndex: Codable {
    /// The schema this code writes and reads.
    static let currentSchemaVersion = 1

    var schemaVersion = MemoIndex.currentSchemaVersion
    var memos: [Memo] = []

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
        /// The index, and the identity of the store directory for which its cache vouches that it lists exactly
        /// the audio files there (see ``MemoIndexCache``).
        case index(MemoIndex, vouchedDirectory: MemoIndexCache.Identity?)
    }

    /// Reads the index at `url`: from its binary cache when that was made from this very file (see
    /// ``MemoIndexCache``), else from the JSON, which then becomes the cache.
    static func load(from url: URL) -> Loaded {
        let cache = cachePath(beside: url)
        let identity = MemoIndexCache.Identity(path: url.path)
        if let identity, let cached = MemoIndexCache.read(at: cache, for: identity),
           cached.index.schemaVersion == currentSchemaVersion {
            return .index(cached.index, vouchedDirectory: cached.vouchedDirectory)
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
            return .index(index, vouchedDirectory: nil)
        }
        struct Version: Decodable { let schemaVersion: Int }
        guard let version = try? decoder.decode(Version.self, from: data) else { return .unreadable }
        return version.schemaVersion > currentSchemaVersion ? .newerSchema(version.schemaVersion) : .unreadable
    }

    private static func cachePath(beside url: URL) -> String {
        url.deletingLastPathComponent().appendingPathComponent(MemoIndexCache.fileName).path
    }

    /// Records in the cache of the index at `url`, if it is still the cache of that very file, that the store directory
    /// as it was when it had `directory` holds exactly the audio files the index lists.
    static func vouch(for directory: MemoIndexCache.Identity, beside url: URL) {
        guard let identity = MemoIndexCache.Identity(path: url.path) else { return }
        MemoIndexCache.vouch(for: directory, at: cachePath(beside: url), for: identity)
    }

    /// Writes the index to `url` atomically: a temporary file beside it (0600), synced, then renamed over it.
    func save(to url: URL) throws(MemoStoreError) {
        do {
            let data = try Self.encoder.encode(self)
            // The old cache goes first: should the new one not be written, none is left to name an inode that a
            // later index might reuse.
            let cache = Self.cachePath(beside: url)
            DurableFile.removeQuietly(cache)
            try DurableFile.write(data, replacing: url.path, permissions: [.ownerReadWrite], syncing: true)
            try DurableFile.syncDirectory(containing: url.path)
            // Taken after the rename, which sets the change time.
            if let identity = MemoIndexCache.Identity(path: url.path) { MemoIndexCache.write(self, at: cache, for: identity) }
        } catch {
            throw .indexWriteFailed(path: url.path, reason: "\(error)")
        }
    }
}
