import Glibc
import SystemPackage

extension FileDescriptor {
    /// Waits until everything written to the file is on the disk, its metadata with it.
    ///
    /// The corresponding C function is `fsync`.
    package func sync() throws(Errno) {
        try Syscall.nothing { fsync(rawValue) }.get()
    }

    /// Waits until the file's bytes are on the disk, and of its metadata what reading them back needs (its size), not
    /// its times.
    ///
    /// The corresponding C function is `fdatasync`.
    package func syncData() throws(Errno) {
        try Syscall.nothing { fdatasync(rawValue) }.get()
    }
}
