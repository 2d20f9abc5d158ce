import AudioIO
import FoundationEssentials
import Glibc
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
/// schema version, the number of memos, an FNV-1a checksum of what follows, then per memo its strings (a 32-bit
/// length and UTF-8), numbers and level lists.
enum MemoIndexCache {
    /// The cache's name in the store directory.
    static let fileName = ".memos.cache"

    /// "VMCACHE" and the layout's version.
    private static let magic: UInt64 = 0x0245_4843_4143_4D56

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
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            self.init(status)
        }

        private init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = UInt64(status.st_size)
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
            var reader = Reader(bytes: bytes)
            guard reader.word() == magic,
                  identity.words.allSatisfy({ reader.word() == $0 }),
                  let directoryWords = reader.words(Identity.wordCount),
                  let schemaVersion = reader.word().map({ Int(Int64(bitPattern: $0)) }),
                  let count = reader.word().flatMap({ Int(exactly: $0) }),
                  let checksum = reader.word(),
                  checksum == Self.checksum(of: UnsafeRawBufferPointer(rebasing: bytes[reader.offset...]))
            else { return nil }
            var memos: [Memo] = []
            memos.reserveCapacity(min(count, bytes.count / 64))
            for _ in 0..<count {
                guard let memo = reader.memo() else { return nil }
                memos.append(memo)
            }
            guard reader.offset == bytes.count else { return nil }
            return (MemoIndex(schemaVersion: schemaVersion, memos: memos), Identity(words: directoryWords))
        }
    }

    /// Writes `index` as the cache of the `memos.json` that has `identity`, atomically; quietly does nothing
    /// when it cannot (a read-only store, a full disk): the cache only saves time.
    static func write(_ index: MemoIndex, at path: String, for identity: Identity) {
        var body = Writer()
        for memo in index.memos { body.append(memo) }
        var header = Writer()
        let counts = [UInt64(bitPattern: Int64(index.schemaVersion)), UInt64(index.memos.count)]
        let noDirectory = [UInt64](repeating: 0, count: Identity.wordCount)
        for word in [magic] + identity.words + noDirectory + counts {
            header.append(word)
        }
        header.append(body.bytes.withUnsafeBytes { checksum(of: $0) })
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
        var status = stat()
        guard fstat(file.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        let header = [magic] + identity.words
        var found = [UInt64](repeating: 0, count: header.count)
        guard (try? found.withUnsafeMutableBytes { try file.read(fromAbsoluteOffset: 0, into: $0) }) == header.count * 8,
              found == header
        else { return }
        _ = try? directory.words.withUnsafeBytes { try file.writeAll(toAbsoluteOffset: Int64(header.count * 8), $0) }
    }

    /// 64-bit FNV-1a over 64-bit words (and the last bytes one by one): a byte at a time, 1.5 MB took milliseconds.
    private static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        let words = bytes.count / 8
        for offset in stride(from: 0, to: words * 8, by: 8) {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01B3
        }
        for byte in bytes[(words * 8)...] {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func append(_ word: UInt64) {
            withUnsafeBytes(of: word) { bytes.append(contentsOf: $0) }
        }

        mutating func append(_ number: Double) { append(number.bitPattern) }

        mutating func append(_ text: String) {
            withUnsafeBytes(of: UInt32(text.utf8.count)) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: text.utf8)
        }

        mutating func append(_ levels: [Double]) {
            append(UInt64(levels.count))
            for level in levels { append(level) }
        }

        mutating func append(_ memo: Memo) {
            for text in [memo.id, memo.title, memo.fileName, memo.format.rawValue, memo.state.rawValue] {
                append(text)
            }
            // To the second, as memos.json holds it, so that the copy and the JSON read the same.
            append(memo.createdAt.timeIntervalSince1970.rounded(.down))
            append(memo.duration)
            append(memo.sampleRate)
            append(UInt64(bitPattern: Int64(memo.channels)))
            append(UInt64(bitPattern: memo.sizeBytes))
            append(memo.peakDBFS)
            append(memo.averageDBFS)
        }
    }

    /// Reads what ``Writer`` wrote, checking every length against what is left.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func word() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            defer { offset += 8 }
            return bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        }

        mutating func words(_ count: Int) -> [UInt64]? {
            guard (bytes.count - offset) / 8 >= count else { return nil }
            return (0..<count).map { _ in word()! }
        }

        mutating func number() -> Double? { word().map(Double.init(bitPattern:)) }

        mutating func text() -> String? {
            // Decoding, which mends what is not UTF-8, rather than validating: cheaper, and the checksum has
            // already shown these bytes are what was written, the bytes of a String.
            textBytes().map { String(decoding: $0, as: UTF8.self) }
        }

        mutating func textBytes() -> UnsafeBufferPointer<UInt8>? {
            guard bytes.count - offset >= 4 else { return nil }
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard bytes.count - offset - 4 >= length else { return nil }
            defer { offset += 4 + length }
            return UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + length)]).assumingMemoryBound(to: UInt8.self)
        }

        private static let formats = AudioFileFormat.allCases.map { ($0, Array($0.rawValue.utf8)) }
        private static let states = Memo.State.allCases.map { ($0, Array($0.rawValue.utf8)) }

        mutating func levels() -> [Double]? {
            guard let count = word().flatMap({ Int(exactly: $0) }), count <= (bytes.count - offset) / 8 else { return nil }
            defer { offset += 8 * count }
            return (0..<count).map { bytes.loadUnaligned(fromByteOffset: offset + 8 * $0, as: Double.self) }
        }

        /// The case of `Value` whose raw value is the next text, without making a string of it.
        mutating func oneOf<Value>(_ values: [(Value, [UInt8])]) -> Value? {
            guard let text = textBytes() else { return nil }
            return values.first { $0.1.elementsEqual(text) }?.0
        }

        mutating func memo() -> Memo? {
            guard let id = text(), let title = text(), let fileName = text(),
                  let format = oneOf(Self.formats), let state = oneOf(Self.states),
                  let createdAt = number(), let duration = number(), let sampleRate = number(),
                  let channels = word(), let sizeBytes = word(),
                  let peakDBFS = levels(), let averageDBFS = levels()
            else { return nil }
            return Memo(
                id: id, title: title, createdAt: Date(timeIntervalSince1970: createdAt), duration: duration,
                fileName: fileName, format: format, sampleRate: sampleRate, channels: Int(Int64(bitPattern: channels)),
                sizeBytes: Int64(bitPattern: sizeBytes), peakDBFS: peakDBFS, averageDBFS: averageDBFS, state: state)
        }
    }
}
