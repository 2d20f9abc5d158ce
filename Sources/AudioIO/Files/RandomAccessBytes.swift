import SystemPackage

/// Bytes read at any offset, a read blocking until they are there: what ``AudioFile`` reads when it reads no local
/// file (an `http` address, through `RemoteReader`). libsndfile reaches them through its virtual I/O, FFmpeg through
/// an I/O context of its own, each keeping its own position.
protocol RandomAccessBytes: AnyObject {
    /// The length in bytes.
    var byteCount: Int64 { get }
    /// Reads up to `buffer.count` bytes at `offset` into `buffer`, waiting for at least one; returns how many (fewer
    /// than asked when no more are there yet), 0 past the end and after a failure (which the conforming type keeps, to
    /// be reported instead of the end it looks like).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int
}

/// A reading position over ``RandomAccessBytes``, for the C callbacks of one open file.
final class BytePosition {
    let bytes: any RandomAccessBytes
    var offset: Int64 = 0

    init(_ bytes: any RandomAccessBytes) {
        self.bytes = bytes
    }

    /// Reads at the position, filling `buffer` unless the end comes first (libsndfile takes a short read for the
    /// end), and moves the position past what was read.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var done = 0
        while done < buffer.count {
            let count = bytes.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if count == 0 { break }
            offset += Int64(count)
            done += count
        }
        return done
    }

    /// Reads at the position what is there now, at least one byte unless at the end, and moves the position past it:
    /// for FFmpeg, which takes a short read for what it is, and so decodes what has downloaded rather than waiting for
    /// its whole buffer.
    func readAvailable(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = bytes.read(at: offset, into: buffer)
        offset += Int64(count)
        return count
    }

    /// Moves to `offset` from the start, the position (`SEEK_CUR`) or the end (`SEEK_END`), as C's `whence` says;
    /// returns the new position, or -1 for one before the start.
    func seek(_ offset: Int64, from whence: Int32) -> Int64 {
        let base: Int64 = switch FileDescriptor.SeekOrigin(rawValue: whence) {
        case .current: self.offset
        case .end: bytes.byteCount
        default: 0
        }
        guard base + offset >= 0 else { return -1 }
        self.offset = base + offset
        return self.offset
    }
}
