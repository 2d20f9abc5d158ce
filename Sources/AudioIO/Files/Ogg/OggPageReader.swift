import COgg
import SystemPackage

/// Reads the pages of an Ogg file in order through libogg's sync layer (`ogg_sync_*`), which finds each page's
/// capture pattern and checks its CRC: what it returns is a whole, intact page, a run of bytes that is none (a
/// damaged span), or the end of the file, with any bytes left there that make no whole page (a page torn by a
/// write cut short).
///
/// **Not thread-safe**: one thread reads at a time.
final class OggPageReader {
    /// What the next look at the file found.
    enum Item: Equatable {
        /// An intact page.
        case page(OggPage)
        /// `byteCount` bytes at `offset` that are no page: damage, or bytes that were never a page.
        case damaged(offset: Int64, byteCount: Int)
        /// The end of the file; the last `tornByteCount` bytes (from `offset` on) are the start of a page that was
        /// never finished, or 0.
        case end(offset: Int64, tornByteCount: Int)
    }

    /// Reads bytes at an offset into a buffer; 0 at the end.
    private let read: (Int64, UnsafeMutableRawBufferPointer) throws(Errno) -> Int
    private let sync: UnsafeMutablePointer<ogg_sync_state>
    /// The file offset of the first byte libogg holds and has not returned yet.
    private var position: Int64
    /// The file offset just past the last byte read.
    private var readEnd: Int64
    private var isAtEndOfFile = false

    /// Reads pages from `descriptor`, from `offset` on (with `pread`: the descriptor's own offset stays as it is).
    ///
    /// The corresponding C function is `ogg_sync_init`.
    convenience init(descriptor: FileDescriptor, offset: Int64 = 0) {
        self.init(offset: offset) { (offset, buffer) throws(Errno) in
            do {
                return try descriptor.read(fromAbsoluteOffset: offset, into: buffer, retryOnInterrupt: true)
            } catch {
                throw error as? Errno ?? .ioError
            }
        }
    }

    /// Reads pages from `bytes` (an address's, as they download), from the start; a failed read is the end.
    convenience init(bytes: any RandomAccessBytes) {
        self.init(offset: 0) { offset, buffer in bytes.read(at: offset, into: buffer) }
    }

    private init(offset: Int64, read: @escaping (Int64, UnsafeMutableRawBufferPointer) throws(Errno) -> Int) {
        self.read = read
        position = offset
        readEnd = offset
        sync = .allocate(capacity: 1)
        ogg_sync_init(sync)
    }

    deinit {
        ogg_sync_clear(sync)
        sync.deallocate()
    }

    /// Whether the file on `descriptor` begins with an Ogg page's capture pattern, `OggS`.
    static func beginsWithPage(_ descriptor: FileDescriptor) -> Bool {
        var magic = [UInt8](repeating: 0, count: 4)
        let count = (try? magic.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }) ?? 0
        return count == 4 && magic == Array("OggS".utf8)
    }

    /// Bytes asked of the file at a time.
    private static let chunkSize = 65536

    /// The next page, damaged span or the end.
    ///
    /// The corresponding C functions are `ogg_sync_pageseek`, `ogg_sync_buffer` and `ogg_sync_wrote`.
    ///
    /// - Throws: `Errno` when the file cannot be read.
    func next() throws(Errno) -> Item {
        while true {
            var page = ogg_page()
            let result = ogg_sync_pageseek(sync, &page)
            if result > 0 {
                defer { position += Int64(result) }
                return .page(OggPage(page, offset: position))
            }
            if result < 0 {
                defer { position += Int64(-result) }
                return .damaged(offset: position, byteCount: Int(-result))
            }
            if isAtEndOfFile {
                return .end(offset: position, tornByteCount: Int(readEnd - position))
            }
            guard let buffer = ogg_sync_buffer(sync, Self.chunkSize) else { throw .noMemory }
            let count = try read(readEnd, UnsafeMutableRawBufferPointer(start: buffer, count: Self.chunkSize))
            if count == 0 { isAtEndOfFile = true }
            ogg_sync_wrote(sync, count)
            readEnd += Int64(count)
        }
    }
}
