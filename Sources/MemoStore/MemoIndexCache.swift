import AudioIO
import FoundationEssentials
import Glibc

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
/// The layout, in the machine's byte order (a copy moved to another machine does not match and is remade):
/// the magic, the identity of `memos.json`, the schema version, the number of memos, an FNV-1a checksum of
/// what follows, then per memo its strings (a 32-bit length and UTF-8), numbers and level lists.
enum MemoIndexCache {
    /// The cache's name in the store directory.
    static let fileName = ".memos.cache"

    /// "VMCACHE" and the layout's version.
    private static let magic: UInt64 = 0x0145_4843_4143_4D56

    /// Which version of `memos.json` a cache was made from.
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

        fileprivate var words: [UInt64] {
            [device, inode, size, modifiedSeconds, modifiedNanoseconds, changedSeconds, changedNanoseconds]
        }
    }

    /// The index cached at `path`, if it was made from the `memos.json` that has `identity` and is intact.
    static func read(at path: String, for identity: Identity) -> MemoIndex? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { bytes -> MemoIndex? in
            var reader = Reader(bytes: bytes)
            guard reader.word() == magic,
                  identity.words.allSatisfy({ reader.word() == $0 }),
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
            return MemoIndex(schemaVersion: schemaVersion, memos: memos)
        }
    }

    /// Writes `index` as the cache of the `memos.json` that has `identity`, atomically; quietly does nothing
    /// when it cannot (a read-only store, a full disk): the cache only saves time.
    static func write(_ index: MemoIndex, at path: String, for identity: Identity) {
        var body = Writer()
        for memo in index.memos { body.append(memo) }
        var header = Writer()
        let counts = [UInt64(bitPattern: Int64(index.schemaVersion)), UInt64(index.memos.count)]
        for word in [magic] + identity.words + counts {
            header.append(word)
        }
        header.append(body.bytes.withUnsafeBytes { checksum(of: $0) })
        try? DurableFile.write(header.bytes + body.bytes, replacing: path, permissions: [.ownerReadWrite], syncing: false)
    }

    /// 64-bit FNV-1a.
    private static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
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

        mutating func number() -> Double? { word().map(Double.init(bitPattern:)) }

        mutating func text() -> String? {
            guard bytes.count - offset >= 4 else { return nil }
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard bytes.count - offset - 4 >= length else { return nil }
            defer { offset += 4 + length }
            let text = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + length)])
            // Decoding, which mends what is not UTF-8, rather than validating: cheaper, and the checksum has
            // already shown these bytes are what was written, the bytes of a String.
            return String(decoding: text.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }

        mutating func levels() -> [Double]? {
            guard let count = word().flatMap({ Int(exactly: $0) }), count <= (bytes.count - offset) / 8 else { return nil }
            return (0..<count).map { _ in number()! }
        }

        mutating func memo() -> Memo? {
            guard let id = text(), let title = text(), let fileName = text(),
                  let format = text().flatMap(AudioFileFormat.init(rawValue:)),
                  let state = text().flatMap(Memo.State.init(rawValue:)),
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
