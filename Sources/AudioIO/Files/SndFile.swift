import CSndFile
import Synchronization
import SystemPackage

/// A failure reported by libsndfile, with its own code and message.
///
/// The corresponding C functions are `sf_error` and `sf_strerror`.
struct SndFileError: Error, CustomStringConvertible {
    /// libsndfile's error code (`SF_ERR_*` or one of its internal `SFE_*` values).
    let code: Int32
    /// libsndfile's sentence for the code, without a trailing period.
    let message: String

    var description: String { message }

    /// Whether a write failed for want of space. libsndfile reports a failed system call by `strerror`'s text alone
    /// ("System error : No space left on device"), not its number.
    var isNoSpace: Bool { code == SF_ERR_SYSTEM && message.hasSuffix(Errno.noSpace.description) }

    /// The error libsndfile holds for `handle`, or for the last failed open when `handle` is nil.
    static func last(_ handle: OpaquePointer?) -> SndFileError {
        let text = String(cString: sf_strerror(handle))
        let trimmed = text.hasSuffix(".") ? String(text.dropLast()) : text
        return SndFileError(code: sf_error(handle), message: trimmed)
    }
}

/// The one owner of a `SNDFILE*`: a method per libsndfile call, each turning its report into a
/// `SndFileError`. Nothing outside `Files/` sees libsndfile.
///
/// **Not thread-safe**: one thread at a time (the decoder, the writer or the converter).
final class SndFile {
    enum Mode {
        case read
        case write(SF_INFO)
    }

    private static let openLock = Mutex(())
    private let handle: OpaquePointer
    /// What libsndfile knows of the stream: rate, channels, frames, format.
    let info: SF_INFO
    private var isClosed = false
    /// The position the virtual I/O reads at, kept alive for libsndfile's callbacks.
    private var virtualPosition: BytePosition?

    /// Opens libsndfile on `descriptor`, which libsndfile owns from here on, also when this throws: it is closed by
    /// ``close()``, or by the failed open. A caller that writes the file on after libsndfile (markers, a sync) hands it
    /// a duplicate (`duplicateClosingOnExec()`).
    ///
    /// libsndfile is asked to close it always: told not to, libsndfile 1.2.0 (Debian 12's) still closes it when the
    /// open fails (a header that cannot be written on a full disk), and a caller closing or unlocking it after that
    /// would act on a number another thread may have opened since (libsndfile's issue #949; fixed in 1.2.1).
    ///
    /// The corresponding C function is `sf_open_fd`.
    init(descriptor: FileDescriptor, mode: Mode) throws(SndFileError) {
        var info = SF_INFO()
        let cMode: Int32
        switch mode {
        case .read: cMode = Int32(SFM_READ)
        case .write(let wanted): cMode = Int32(SFM_WRITE); info = wanted
        }
        // libsndfile reports a failed open through process-wide state, so opens take turns.
        let opened: Result<OpaquePointer, SndFileError> = Self.openLock.withLock { _ in
            guard let handle = sf_open_fd(descriptor.rawValue, cMode, &info, Int32(SF_TRUE))
            else { return .failure(SndFileError.last(nil)) }
            return .success(handle)
        }
        self.handle = try opened.get()
        self.info = info
    }

    /// Opens libsndfile for reading `bytes` (an `http` address's), through its virtual I/O.
    ///
    /// The corresponding C function is `sf_open_virtual`.
    init(reading bytes: any RandomAccessBytes) throws(SndFileError) {
        let position = BytePosition(bytes)
        var io = SF_VIRTUAL_IO(
            get_filelen: { context in SndFile.position(context).bytes.byteCount },
            seek: { offset, whence, context in SndFile.position(context).seek(offset, from: whence) },
            read: { pointer, count, context in
                sf_count_t(SndFile.position(context).read(into: UnsafeMutableRawBufferPointer(start: pointer, count: Int(count))))
            },
            write: { _, _, _ in 0 },
            tell: { context in SndFile.position(context).offset })
        var info = SF_INFO()
        var opened: OpaquePointer?
        var failure = SndFileError(code: 0, message: "")
        Self.openLock.withLock { _ in
            opened = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(position).toOpaque())
            if opened == nil { failure = SndFileError.last(nil) }
        }
        guard let opened else { throw failure }
        handle = opened
        self.info = info
        virtualPosition = position
    }

    private static func position(_ context: UnsafeMutableRawPointer?) -> BytePosition {
        Unmanaged<BytePosition>.fromOpaque(context!).takeUnretainedValue()
    }

    deinit {
        if !isClosed { sf_close(handle) }
    }

    /// Reads up to `buffer.count / channels` interleaved frames; returns how many were read (0 at the end). Frames
    /// read before an error are returned, and the error thrown by the next call, which reads none.
    ///
    /// The corresponding C functions are `sf_readf_float`, `sf_readf_int` and `sf_readf_short`.
    func read<Sample: SndFileSample>(into buffer: UnsafeMutableBufferPointer<Sample>) throws(SndFileError) -> Int {
        let wanted = sf_count_t(buffer.count / Int(info.channels))
        let got = Sample.readFrames(handle, buffer.baseAddress, wanted)
        if got == 0, sf_error(handle) != SF_ERR_NO_ERROR { throw SndFileError.last(handle) }
        return Int(got)
    }

    /// Writes all of `frames` (interleaved) or throws; a short write is an error (disk full, I/O error).
    ///
    /// The corresponding C functions are `sf_writef_float`, `sf_writef_int` and `sf_writef_short`.
    func write<Sample: SndFileSample>(_ frames: UnsafeBufferPointer<Sample>) throws(SndFileError) {
        let count = sf_count_t(frames.count / Int(info.channels))
        if Sample.writeFrames(handle, frames.baseAddress, count) != count { throw SndFileError.last(handle) }
    }

    /// Moves the read position to `frame`, counted from the start.
    ///
    /// The corresponding C function is `sf_seek` with `SEEK_SET`.
    func seek(toFrame frame: Int64) throws(SndFileError) {
        if sf_seek(handle, sf_count_t(frame), SEEK_SET) < 0 { throw SndFileError.last(handle) }
    }

    /// The string stored under `key` (`SF_STR_TITLE`, `SF_STR_DATE`, ...), if the file has one.
    ///
    /// The corresponding C function is `sf_get_string`.
    func string(_ key: Int32) -> String? {
        guard let text = sf_get_string(handle, key) else { return nil }
        return String(cString: text)
    }

    /// Whether the header promises more audio than the file holds, as libsndfile found when it opened it: its log
    /// says so of the audio chunk (`data : 960000 (should be 29956)` in a WAV or CAF, `SSND` in an AIFF), whose
    /// frames it then counts to what is there.
    ///
    /// The corresponding C function is `sf_command` with `SFC_GET_LOG_INFO`.
    var headerPromisesMoreThanItHolds: Bool {
        var log = [CChar](repeating: 0, count: 16384)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = log.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.split(separator: "\n").contains { line in
            guard let match = line.wholeMatch(of: /\s*(?:data|SSND)\s*:\s*(\d+)\s*\(should be (\d+)\)\s*/),
                  let promised = Int(match.1), let held = Int(match.2)
            else { return false }
            return promised > held
        }
    }

    /// Stores `value` under `key`; call before the first write so that every container keeps it.
    ///
    /// The corresponding C function is `sf_set_string`.
    func setString(_ key: Int32, _ value: String) throws(SndFileError) {
        if sf_set_string(handle, key, value) != 0 { throw SndFileError.last(handle) }
    }

    /// Sends a command whose argument is a C `int` (a boolean or a value).
    ///
    /// The corresponding C function is `sf_command`. Returns what libsndfile returns.
    @discardableResult
    func command(_ command: Int32, int value: Int32) -> Int32 {
        sf_command(handle, command, nil, value)
    }

    /// Sends a command whose argument is a pointer to a C `int`, as `SFC_SET_BITRATE_MODE` takes; returns whether
    /// libsndfile reports success (``lastError`` says why not).
    ///
    /// The corresponding C function is `sf_command`.
    @discardableResult
    func command(_ command: Int32, pointee value: Int32) -> Bool {
        var value = value
        return sf_command(handle, command, &value, Int32(MemoryLayout<Int32>.size)) == Int32(SF_TRUE)
    }

    /// Sends a command whose argument is a pointer to a `double`, as `SFC_SET_COMPRESSION_LEVEL` takes; returns
    /// whether libsndfile reports success (``lastError`` says why not). libsndfile 1.2.0 applies
    /// `SFC_SET_OGG_PAGE_LATENCY_MS` and reports failure all the same.
    ///
    /// The corresponding C function is `sf_command`.
    @discardableResult
    func command(_ command: Int32, double value: Double) -> Bool {
        var value = value
        return sf_command(handle, command, &value, Int32(MemoryLayout<Double>.size)) == Int32(SF_TRUE)
    }

    /// The file's cue points (WAV `cue `, AIFF `MARK`): each one's frame and name (a WAV label), in the file's order.
    ///
    /// The corresponding C function is `sf_command` with `SFC_GET_CUE_COUNT` and `SFC_GET_CUE`.
    var cues: [(frame: Int64, name: String?)] {
        var count: UInt32 = 0
        guard sf_command(handle, Int32(SFC_GET_CUE_COUNT), &count, Int32(MemoryLayout<UInt32>.size)) == Int32(SF_TRUE), count > 0
        else { return [] }
        let stride = MemoryLayout<SF_CUE_POINT>.stride
        let size = MemoryLayout<UInt32>.size + Int(count) * stride
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<SF_CUE_POINT>.alignment)
        defer { buffer.deallocate() }
        guard sf_command(handle, Int32(SFC_GET_CUE), buffer, Int32(size)) == Int32(SF_TRUE) else { return [] }
        let read = Int(buffer.load(as: UInt32.self))
        return (0..<min(read, Int(count))).map { index in
            var point = buffer.load(fromByteOffset: MemoryLayout<UInt32>.size + index * stride, as: SF_CUE_POINT.self)
            let name = withUnsafeBytes(of: &point.name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return (Int64(point.sample_offset), name.isEmpty ? nil : name)
        }
    }

    /// The error libsndfile holds for this file now.
    var lastError: SndFileError { .last(handle) }

    /// libsndfile's name for the file's container, e.g. "WAV (Microsoft)".
    ///
    /// The corresponding C function is `sf_command` with `SFC_GET_FORMAT_INFO`.
    var containerName: String {
        var formatInfo = SF_FORMAT_INFO()
        formatInfo.format = info.format & Int32(SF_FORMAT_TYPEMASK)
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &formatInfo, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
              let name = formatInfo.name
        else { return "unknown" }
        return String(cString: name)
    }

    /// Finishes the file (header, last Ogg page) and releases it; reports a failure of that last write.
    ///
    /// The corresponding C function is `sf_close`.
    func close() throws(SndFileError) {
        guard !isClosed else { return }
        isClosed = true
        let code = sf_close(handle)
        if code != 0 { throw SndFileError(code: code, message: String(cString: sf_error_number(code))) }
    }

    /// The library's version string, e.g. "libsndfile-1.2.0".
    ///
    /// The corresponding C function is `sf_version_string`.
    static var version: String { String(cString: sf_version_string()) }
}

/// A sample type libsndfile reads and writes without conversion of its own: 32-bit float in −1…1, left-justified
/// 32-bit integers, which carry 16- and 24-bit PCM exactly, or 16-bit integers, which 16-bit PCM is.
protocol SndFileSample {
    static func readFrames(_ handle: OpaquePointer, _ buffer: UnsafeMutablePointer<Self>?, _ frames: sf_count_t) -> sf_count_t
    static func writeFrames(_ handle: OpaquePointer, _ buffer: UnsafePointer<Self>?, _ frames: sf_count_t) -> sf_count_t
}

extension Float: SndFileSample {
    static func readFrames(_ handle: OpaquePointer, _ buffer: UnsafeMutablePointer<Float>?, _ frames: sf_count_t) -> sf_count_t {
        sf_readf_float(handle, buffer, frames)
    }

    static func writeFrames(_ handle: OpaquePointer, _ buffer: UnsafePointer<Float>?, _ frames: sf_count_t) -> sf_count_t {
        sf_writef_float(handle, buffer, frames)
    }
}

extension Int32: SndFileSample {
    static func readFrames(_ handle: OpaquePointer, _ buffer: UnsafeMutablePointer<Int32>?, _ frames: sf_count_t) -> sf_count_t {
        sf_readf_int(handle, buffer, frames)
    }

    static func writeFrames(_ handle: OpaquePointer, _ buffer: UnsafePointer<Int32>?, _ frames: sf_count_t) -> sf_count_t {
        sf_writef_int(handle, buffer, frames)
    }
}

extension Int16: SndFileSample {
    static func readFrames(_ handle: OpaquePointer, _ buffer: UnsafeMutablePointer<Int16>?, _ frames: sf_count_t) -> sf_count_t {
        sf_readf_short(handle, buffer, frames)
    }

    static func writeFrames(_ handle: OpaquePointer, _ buffer: UnsafePointer<Int16>?, _ frames: sf_count_t) -> sf_count_t {
        sf_writef_short(handle, buffer, frames)
    }
}
