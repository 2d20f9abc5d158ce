import Glibc
import SystemPackage

extension FileDescriptor {
    /// A new, empty file in `directory` that no name leads to: read and written through the descriptor (and
    /// `/proc/self/fd/N`), gone once it is closed. Its name, `prefix` and six random characters, lasts only until this
    /// returns. Open for reading and writing, closed on exec.
    ///
    /// The corresponding C functions are `mkstemp` and `unlink`.
    ///
    /// - Throws: `Errno` when the file cannot be made (the directory's permissions, a full disk).
    package static func openUnnamed(in directory: String, prefix: String) throws(Errno) -> FileDescriptor {
        var template = Array((directory + "/" + prefix + "XXXXXX").utf8CString)
        let descriptor = try Syscall.value { template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } }.get()
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { FileNames.removeIgnoringFailure(String(cString: $0.baseAddress!)) }
        return FileDescriptor(rawValue: descriptor)
    }
}
