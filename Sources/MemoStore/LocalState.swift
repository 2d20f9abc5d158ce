import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// What this machine keeps of a store outside it, where no sync tool ships it: under `$XDG_STATE_HOME/voicememo`
/// (default `~/.local/state/voicememo`), the machine's id, `machine-id`, made on first use, and per store a directory
/// `stores/<key>/`, named by a hash of the store's path, holding:
///
/// - `memos.json`, `memos.journal` and `.memos.cache`: the store's index (see ``MemoIndex``), a cache of what the
///   store's files say, rebuilt from them whenever it is missing (the store was moved, the state deleted);
/// - `lock`: the lock this machine's processes take to change the store and its index;
/// - `state.json`: what it knows of the store (``Store``);
/// - `folded`: the names of the change files the index has folded in, one a line (read only when the store's directory
///   is, so that `list` does not parse thousands of names each time; see ``MemoStore``).
///
/// A machine is who writes, not where the store is: two processes with different state directories are two machines,
/// even on one computer.
struct LocalState {
    /// `$XDG_STATE_HOME/voicememo`.
    let directory: URL
    /// `stores/<key>`: its key is a hash of the store's path, so that each store has its own.
    let storeDirectory: String
    /// The store's index.
    let indexURL: URL
    /// The lock this machine's processes take to change the store.
    let lockPath: String
    /// The store's `state.json`.
    let statePath: String
    /// The store's `folded`.
    let foldedPath: String
    /// Where the voicememo before this one kept `state.json` and `folded`: `stores/<key>.json`, `stores/<key>.folded`.
    let legacyPaths: [String]

    init(directory: URL, store: URL) {
        self.directory = directory
        let key = Array(store.standardizedFileURL.path.utf8).withUnsafeBytes(MemoRecordWriter.checksum(of:))
        let stem = directory.appendingPathComponent("stores").appendingPathComponent(String(key, radix: 16)).path
        storeDirectory = stem
        indexURL = URL(filePath: stem + "/memos.json", directoryHint: .notDirectory)
        lockPath = stem + "/lock"
        statePath = stem + "/state.json"
        foldedPath = stem + "/folded"
        legacyPaths = [stem + ".json", stem + ".folded"]
    }

    /// Makes `stores/<key>` (and the directories above it) if it is missing, 0700.
    ///
    /// - Throws: ``MemoStoreError/stateUnusable(path:reason:)`` when it cannot be made.
    func makeStoreDirectory() throws(MemoStoreError) {
        do {
            try makeDirectory(storeDirectory)
        } catch {
            throw .stateUnusable(path: storeDirectory, reason: MemoStore.reason(error))
        }
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

    /// What `state.json` holds.
    struct Store: Codable, Equatable {
        /// The identities of the index's `memos.json` and `memos.journal` when the changes in `folded` were folded
        /// into it; another identity (the index was rebuilt, replaced or taken from an older voicememo's) means they
        /// must all be folded in again.
        var index: String?
        var journal: String?
        /// The highest clock of any edit seen in the store: this machine's next edit has the one after.
        var clock = 0
        /// The sync tools' conflict copies merged here, all told.
        var conflictsMerged = 0
    }

    /// The store's state as last saved; an empty one when there is none or it cannot be read (it is only a cache).
    func load() -> Store {
        guard let bytes = try? DurableFile.contents(of: statePath),
              let store = try? MemoIndex.decoder.decode(Store.self, from: Data(bytes))
        else { return Store() }
        return store
    }

    /// Saves the store's state; a failure only costs a fold of every edit next time.
    func save(_ store: Store) {
        do {
            try makeDirectory(storeDirectory)
            let data = try MemoIndex.encoder.encode(store)
            try DurableFile.write(Array(data), replacing: statePath, permissions: [.ownerReadWrite], syncing: false)
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
            try makeDirectory(storeDirectory)
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
