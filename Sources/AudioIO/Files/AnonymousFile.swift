import FoundationEssentials
import Glibc
import SystemPackage

/// Bytes in an unlinked temporary file, reachable by a path for as long as this object lives: how
/// in-memory audio gets to libsndfile through the same path as files on disk.
final class AnonymousFile: @unchecked Sendable {
    private let descriptor: FileDescriptor
    /// A path that reads the bytes, `/proc/self/fd/N`.
    let url: URL

    /// The corresponding C functions are `mkstemp` and `unlink`.
    init(_ data: Data) throws(AudioFileError) {
        var template = Array((FileManager.default.temporaryDirectory.path + "/voicememo-XXXXXX").utf8CString)
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard raw >= 0 else { throw AudioFileError(path: "(memory)", reason: .writeFailed(Errno(rawValue: errno).description)) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        descriptor = FileDescriptor(rawValue: raw)
        url = URL(fileURLWithPath: "/proc/self/fd/\(raw)")
        do {
            try descriptor.writeAll(data)
        } catch {
            try? descriptor.close()
            throw AudioFileError(path: "(memory)", reason: .writeFailed("\(error)"))
        }
    }

    deinit { try? descriptor.close() }
}
