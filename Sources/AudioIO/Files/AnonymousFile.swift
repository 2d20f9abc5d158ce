import FoundationEssentials
import SystemEdge
import SystemPackage

/// Bytes in an unlinked temporary file, reachable by a path for as long as this object lives: how
/// in-memory audio gets to libsndfile through the same path as files on disk.
final class AnonymousFile: @unchecked Sendable {
    private let descriptor: FileDescriptor
    /// A path that reads the bytes, `/proc/self/fd/N`.
    let url: URL

    /// A file in the temporary directory that no name leads to, holding `data`.
    init(_ data: Data) throws(AudioFileError) {
        do {
            descriptor = try FileDescriptor.openUnnamed(in: FileManager.default.temporaryDirectory.path, prefix: "voicememo-")
        } catch {
            throw AudioFileError(path: "(memory)", reason: .writeFailed(error.description))
        }
        url = URL(fileURLWithPath: "/proc/self/fd/\(descriptor.rawValue)")
        do {
            try descriptor.writeAll(data)
        } catch {
            try? descriptor.close()
            throw AudioFileError(path: "(memory)", reason: .writeFailed("\(error)"))
        }
    }

    deinit { try? descriptor.close() }
}
