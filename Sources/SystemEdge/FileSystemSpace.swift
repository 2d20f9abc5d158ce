import Glibc
import SystemPackage

/// How much room is left on the file system holding a path: what a command that failed for want of space says.
package struct FileSystemSpace: Sendable, Equatable {
    /// The bytes this process may still write there (the blocks left to users other than root, on file systems that
    /// keep some for root).
    package let availableBytes: Int64
    /// The size of a block: the least a file with anything in it takes there.
    package let blockSize: Int64

    /// The room on the file system that holds `path`.
    ///
    /// The corresponding C function is `statvfs`.
    ///
    /// - Throws: The error `statvfs` reports: no such path, its permissions.
    package init(of path: String) throws(Errno) {
        var system = statvfs()
        try Syscall.nothing { statvfs(path, &system) }.get()
        blockSize = Int64(system.f_frsize)
        availableBytes = Int64(system.f_bavail) * blockSize
    }
}
