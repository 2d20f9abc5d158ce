import Glibc
import SystemPackage

/// The file-system calls that make a write durable and atomic, which swift-system does not wrap:
/// `fsync(2)` and `rename(2)`. Shared with `MemoStore` for its index.
package enum DurableFile {
    /// Waits until everything written to `descriptor` is on the disk.
    ///
    /// The corresponding C function is `fsync`.
    package static func sync(_ descriptor: FileDescriptor) throws(Errno) {
        while fsync(descriptor.rawValue) != 0 {
            if errno != EINTR { throw Errno(rawValue: errno) }
        }
    }

    /// Puts `source` in place of `destination` in one step: a reader sees the old file or the new one,
    /// never a mix. Both paths must be on one file system.
    ///
    /// The corresponding C function is `rename`.
    package static func replace(_ destination: String, with source: String) throws(Errno) {
        if rename(source, destination) != 0 { throw Errno(rawValue: errno) }
    }

    /// Syncs the directory holding `path`, so that a rename or a new entry in it survives a power cut.
    package static func syncDirectory(containing path: String) throws(Errno) {
        let directory = FilePath(path).removingLastComponent()
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                directory.isEmpty ? "." : directory, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw error as? Errno ?? .ioError
        }
        defer { try? descriptor.close() }
        try sync(descriptor)
    }

    /// Removes `path` if it exists, ignoring failure: used to clean up after a failed write.
    package static func removeQuietly(_ path: String) {
        unlink(path)
    }
}
