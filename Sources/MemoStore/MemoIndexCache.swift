import AudioIO
import Dispatch
import FoundationEssentials
import Synchronization
import SystemPackage

/// `.memos.cache`: a binary copy of `memos.json` that loads in milliseconds.
///
/// `voicememo list` on a store of 10,000 memos would otherwise spend most of its time in JSONDecoder (about
/// 200 ms for the 4 MB index). The copy is trusted only for the very `memos.json` it was made from (its
/// device, inode, size, and modification and change times, recorded in it; the change time is one no program
/// can set back) and only when its checksum holds, so an index edited by hand, replaced or damaged, and a
/// damaged copy, are never believed: the JSON is read instead and the copy made again. The checksum catches
/// damage, not forgery: what the copy says is checked as the JSON's entries are (``Memo/isPlausible``), and
/// whoever can write the copy can write the index too. It is never the truth; deleting it loses nothing.
///
/// The copy can also vouch for the directory: it records the directory's identity once a full comparison found the
/// index listing exactly the audio files there, with nothing pending (see ``MemoStore``). While the directory keeps
/// that identity, no file has come or gone since, and reading it again can be skipped.
///
/// The layout, in the machine's byte order (a copy moved to another machine does not match and is remade):
/// the magic, the identity of `memos.json`, the identity of the directory it vouches for (zeros for none), the
/// schema version, the generation (0 for none), the number of memos, an FNV-1a checksum of what follows, then per memo its strings (a 32-bit
/// length and UTF-8), numbers and level lists.
enum MemoIndexCache {
    /// The cache's name beside the index.
    static let fileName = ".memos.cache"

    /// "VMCACHE" and the layout's version: 5 since memos have a count of non-finite samples, 4 since they have a
    /// loudness, tags and markers (an older cache is not read, but remade).
    private static let magic: UInt64 = 0x0545_4843_4143_4D56

    /// Which version of a file or directory: of `memos.json`, which a cache was made from, or of the store directory,
    /// which it vouches for.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: UInt64
        var modifiedSeconds: UInt64
        var modifiedNanoseconds: UInt64
        var changedSeconds: UInt64
        var changedNanoseconds: UInt64

        /// The identity of the file at `path` as it is now, or nil when it cannot be looked at.
        init?(path: String) {
            guard let status = try? FilePath(path).stat() else { return nil }
            self.init(status)
        }

        private init(_ status: Stat) {
            device = UInt64(status.deviceID.rawValue)
            inode = UInt64(status.inode.rawValue)
            size = UInt64(status.size)
            modifiedSeconds = UInt64(bitPattern: Int64(status.st_mtim.tv_sec))
            modifiedNanoseconds = UInt64(status.st_mtim.tv_nsec)
            changedSeconds = UInt64(bitPattern: Int64(status.st_ctim.tv_sec))
            changedNanoseconds = UInt64(status.st_ctim.tv_nsec)
        }

        /// An identity recorded as `words`; none for zeros.
        fileprivate init?(words: [UInt64]) {
            guard words.count == Self.wordCount, words.contains(where: { $0 != 0 }) else { return nil }
            (device, inode, size) = (words[0], words[1], words[2])
            (modifiedSeconds, modifiedNanoseconds, changedSeconds, changedNanoseconds) = (words[3], words[4], words[5], words[6])
        }

        fileprivate var words: [UInt64] {
            [device, inode, size, modifiedSeconds, modifiedNanoseconds, changedSeconds, changedNanoseconds]
        }

        fileprivate static let wordCount = 7
    }

    /// The index cached at `path`, if it was made from the `memos.json` that has `identity` and is intact, and the
    /// identity of the store directory it vouches for, if any.
    static func read(at path: String, for identity: Identity) -> (index: MemoIndex, vouchedDirectory: Identity?)? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { bytes -> (MemoIndex, Identity?)? in
            var reader = MemoRecordReader(bytes: bytes)
            guard reader.word() == magic,
                  identity.words.allSatisfy({ reader.word() == $0 }),
                  let directoryWords = reader.words(Identity.wordCount),
                  let schemaVersion = reader.word().map({ Int(Int64(bitPattern: $0)) }),
                  let generation = reader.word(),
                  let count = reader.word().flatMap({ Int(exactly: $0) }),
                  let checksum = reader.word(),
                  checksum == MemoRecordWriter.checksum(of: UnsafeRawBufferPointer(rebasing: bytes[reader.offset...]))
            else { return nil }
            guard let memos = decodeMemos(count, from: bytes, at: reader.offset) else { return nil }
            let index = MemoIndex(schemaVersion: schemaVersion, generation: generation == 0 ? nil : String(generation, radix: 16), memos: memos)
            return (index, Identity(words: directoryWords))
        }
    }

    /// The `count` memos that fill `bytes` from `offset` to its end, decoded on every core: a store of 50,000 memos
    /// spends most of a change making them. `nil` when the bytes are not exactly that.
    private static func decodeMemos(_ count: Int, from bytes: UnsafeRawBufferPointer, at offset: Int) -> [Memo]? {
        // Where each run of memos starts, found by their lengths alone.
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count / 2000))
        var starts: [Int] = []
        var reader = MemoRecordReader(bytes: bytes)
        reader.offset = offset
        for number in 0..<count {
            if number % ((count + parts - 1) / parts) == 0 { starts.append(reader.offset) }
            guard reader.skipMemo() else { return nil }
        }
        guard reader.offset == bytes.count else { return nil }
        starts.append(bytes.count)
        let size = (count + parts - 1) / parts
        let failed = Mutex(false)
        /// The bytes read and the memos made, each part of the work touching its own run of both.
        struct Runs: @unchecked Sendable {
            let bytes: UnsafeRawBufferPointer
            let memos: UnsafeMutablePointer<Memo>
            let starts: [Int]
        }
        let memos = [Memo](unsafeUninitializedCapacity: count) { buffer, initialized in
            let runs = Runs(bytes: bytes, memos: buffer.baseAddress!, starts: starts)
            DispatchQueue.concurrentPerform(iterations: runs.starts.count - 1) { part in
                let (bytes, base, starts) = (runs.bytes, runs.memos, runs.starts)
                var reader = MemoRecordReader(bytes: bytes)
                reader.offset = starts[part]
                for index in (part * size)..<min(count, (part + 1) * size) {
                    // The lengths were checked above: only a text or a state no memo has stops this.
                    guard let memo = reader.memo(), reader.offset <= starts[part + 1] else {
                        failed.withLock { $0 = true }
                        (base + index).initialize(to: placeholder)
                        continue
                    }
                    (base + index).initialize(to: memo)
                }
            }
            initialized = count
        }
        return failed.withLock { $0 } ? nil : memos
    }

    /// What fills the place of a memo that could not be read, until the whole is thrown away.
    private static let placeholder = Memo(
        id: "", title: "", createdAt: Date(timeIntervalSince1970: 0), duration: 0, fileName: "", format: .wav, sampleRate: 0,
        channels: 0, sizeBytes: 0, peakDBFS: [], averageDBFS: [], state: .complete)

    /// Writes `index` as the cache of the `memos.json` that has `identity`, atomically; quietly does nothing
    /// when it cannot (a read-only store, a full disk): the cache only saves time.
    static func write(_ index: MemoIndex, at path: String, for identity: Identity) {
        var body = MemoRecordWriter()
        for memo in index.memos { body.append(memo) }
        var header = MemoRecordWriter()
        let counts = [UInt64(bitPattern: Int64(index.schemaVersion)), index.generationNumber ?? 0, UInt64(index.memos.count)]
        let noDirectory = [UInt64](repeating: 0, count: Identity.wordCount)
        for word in [magic] + identity.words + noDirectory + counts {
            header.append(word)
        }
        header.append(body.bytes.withUnsafeBytes { MemoRecordWriter.checksum(of: $0) })
        try? DurableFile.write(header.bytes + body.bytes, replacing: path, permissions: [.ownerReadWrite], syncing: false)
    }

    /// Records in the cache at `path`, if it was made from the `memos.json` that has `identity`, that it vouches for
    /// the store directory as it was when it had `directory`. Written in place: replacing the cache would itself
    /// change the directory. Quietly does nothing when it cannot.
    static func vouch(for directory: Identity, at path: String, for identity: Identity) {
        // Not through a link, and only into a regular file: a FIFO put in its place must not hang the store.
        guard let file = try? FileDescriptor.open(path, .readWrite, options: [.noFollow, .nonBlocking, .closeOnExec])
        else { return }
        defer { try? file.close() }
        guard (try? file.stat())?.type == .regular else { return }
        let header = [magic] + identity.words
        var found = [UInt64](repeating: 0, count: header.count)
        guard (try? found.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }) == header.count * 8,
              found == header
        else { return }
        _ = try? directory.words.withUnsafeBytes { try file.writeAll(toAbsoluteOffset: Int64(header.count * 8), $0) }
    }
}
