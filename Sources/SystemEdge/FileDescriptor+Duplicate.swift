import Glibc
import SystemPackage

extension FileDescriptor {
    /// A second descriptor of the same open file, closed when the process runs another program: what a library that
    /// closes the descriptor it is given (on every path, even when it fails) is handed, while this one stays open.
    ///
    /// The two share the open file: its offset, and its `flock` (``lock(_:wait:)``), which lasts while either is open.
    ///
    /// The corresponding C function is `fcntl` with `F_DUPFD_CLOEXEC`.
    ///
    /// - Throws: `Errno.tooManyOpenFiles` when the process has no descriptor left.
    package func duplicateClosingOnExec() throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try Syscall.value { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) }.get())
    }
}
