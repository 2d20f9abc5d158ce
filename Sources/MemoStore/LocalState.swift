import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// What this machine keeps of a store outside it, where no sync tool ships it: under `$XDG_STATE_HOME/voicememo`
/// (default `~/.local/state/voicememo`), the machine's id, `machine-id`, made on first use, and per store
/// `stores/<key>.json`, what it knows of the store, and `stores/<key>.folded`, the names of the change files its index
/// has folded in, one a line (read only when the store's directory is, so that `list` does not parse thousands of
/// names each time; see ``MemoStore``).
///
/// A machine is who writes, not where the store is: two processes with different state directories are two machines,
/// even on one computer.
struct LocalState {
    /// `$XDG_STATE_HOME/voicememo`.
    let directory: URL
    /// The store's file in `stores/`: its key is a hash of the store's path, so that each store has its own.
    let storePath: String
    /// The store's `stores/<key>.folded`.
    let foldedPath: String

    init(directory: URL, store: URL) {
        self.directory = directory
        let key = Array(store.standardizedFileURL.path.utf8).withUnsafeBytes(MemoRecordWriter.checksum(of:))
        let stem = directory.appendingPathComponent("stores").appendingPathComponent(String(key, radix: 16)).path
        storePath = stem + ".json"
        foldedPath = stem + ".folded"
    }

    /// This machine's id: 16 lowercase hexadecimal digits, random, made on first use and kept in `machine-id`. Two
    /// processes making it at once end with the same one: it is put in place only where none is.
    ///
    /// - Throws: ``MemoStoreError/stateUnusable(path:reason:)`` when the state directory cannot be made or read.
    func machineID() throws(MemoStoreError) -> String {
        let path = directory.appendingPathComponent("machine-id").path
        if let id = Self.readID(at: path) { return id }
        do {
            try makeDirectory(directory.path)
            let value = UInt64.random(in: 0...UInt64.max)
            let digits = String(value, radix: 16)
            let text = String(repeating: "0", count: 16 - digits.count) + digits + "\n"
            do {
                try DurableFile.write(Array(text.utf8), replacing: path, permissions: [.ownerReadWrite], syncing: true, replacingExisting: false)
            } catch Errno.fileExists {
                // Another process made it first: its id is the machine's.
            }
        } catch {
            throw .stateUnusable(path: directory.path, reason: MemoStore.reason(error))
        }
        guard let id = Self.readID(at: path) else {
            throw .stateUnusable(path: path, reason: "it does not hold a machine id")
        }
        return id
    }

    private static func readID(at path: String) -> String? {
        guard let bytes = try? DurableFile.contents(of: path) else { return nil }
        guard let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first else { return nil }
        return MemoEditRecord.isMachineID(text) ? String(text) : nil
    }

    /// What `stores/<key>.json` holds.
    struct Store: Codable, Equatable {
        /// The identities of the store's `memos.json` and `memos.journal` when the changes in `.folded` were folded
        /// into it; another identity (a sync tool brought another machine's index, an older voicememo wrote it) means
        /// they must all be folded in again.
        var index: String?
        var journal: String?
        /// The highest clock of any edit seen in the store: this machine's next edit has the one after.
        var clock = 0
        /// The sync tools' conflict copies merged here, all told.
        var conflictsMerged = 0
    }

    /// The store's state as last saved; an empty one when there is none or it cannot be read (it is only a cache).
    func load() -> Store {
        guard let bytes = try? DurableFile.contents(of: storePath),
              let store = try? MemoIndex.decoder.decode(Store.self, from: Data(bytes))
        else { return Store() }
        return store
    }

    /// Saves the store's state; a failure only costs a fold of every edit next time.
    func save(_ store: Store) {
        do {
            try makeDirectory(directory.appendingPathComponent("stores").path)
            let data = try MemoIndex.encoder.encode(store)
            try DurableFile.write(Array(data), replacing: storePath, permissions: [.ownerReadWrite], syncing: false)
        } catch {
            return
        }
    }

    /// Makes the directory at `path` and those above it that are missing, 0700.
    private func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The names of the change files folded into the store's index, as last saved; none when they cannot be read.
    func loadFolded() -> Set<String> {
        guard let bytes = try? DurableFile.contents(of: foldedPath) else { return [] }
        return Set(bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Saves the names of the change files folded into the store's index; a failure only costs a fold of every change
    /// next time.
    func saveFolded(_ names: Set<String>) {
        do {
            try makeDirectory(directory.appendingPathComponent("stores").path)
            let text = names.sorted().map { $0 + "\n" }.joined()
            try DurableFile.write(Array(text.utf8), replacing: foldedPath, permissions: [.ownerReadWrite], syncing: false)
        } catch {
            return
        }
    }

    /// The identity of the file at `path` as ``Store`` records it, or nil when there is none.
    static func identity(of path: String) -> String? {
        MemoIndexCache.Identity(path: path).map { "\($0.device):\($0.inode):\($0.size):\($0.modifiedSeconds).\($0.modifiedNanoseconds):\($0.changedSeconds).\($0.changedNanoseconds)" }
    }
}
