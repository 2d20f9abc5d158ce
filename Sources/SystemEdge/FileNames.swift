import Glibc
import SystemPackage

/// Names in directories, which swift-system does not wrap: renaming, linking, removing, making a directory.
package enum FileNames {
    /// Puts `source` in place of `destination` in one step: a reader sees the old file or the new one, never neither.
    /// Both must be on one file system.
    ///
    /// The corresponding C function is `rename`.
    package static func rename(_ source: String, to destination: String) throws(Errno) {
        try Syscall.nothing { Glibc.rename(source, destination) }.get()
    }

    /// Gives the file at `existing` a second name, `newName`.
    ///
    /// The corresponding C function is `link`.
    ///
    /// - Throws: `Errno.fileExists` when something is at `newName`; nothing changes then.
    package static func link(_ existing: String, as newName: String) throws(Errno) {
        try Syscall.nothing { Glibc.link(existing, newName) }.get()
    }

    /// Removes the name `path`, unless it is gone already: that is what was wanted. The file goes with its last name,
    /// once no process has it open.
    ///
    /// The corresponding C function is `unlink`; `ENOENT` is not an error here.
    package static func removeIfPresent(_ path: String) throws(Errno) {
        switch Syscall.nothing({ unlink(path) }) {
        case .success, .failure(.noSuchFileOrDirectory): return
        case .failure(let error): throw error
        }
    }

    /// Removes the name `path` if it can, and otherwise leaves it: for what a failed or finished write leaves behind (a
    /// temporary file, a second name), where the failure that matters is reported by the caller, and a name left is
    /// found and removed later.
    ///
    /// The corresponding C function is `unlink`; every failure is ignored.
    package static func removeIgnoringFailure(_ path: String) {
        _ = unlink(path)
    }

    /// Fails when this process may not create or remove names in the directory at `path`: a read-only file system, its
    /// permissions.
    ///
    /// The corresponding C function is `access`, with `W_OK`.
    package static func requireWritable(_ path: String) throws(Errno) {
        try Syscall.nothing { access(path, W_OK) }.get()
    }

    /// Makes a directory at `path` with `permissions` (less the process's umask), unless something is there already.
    ///
    /// The corresponding C function is `mkdir`; `EEXIST` is not an error here.
    package static func makeDirectoryIfMissing(_ path: String, permissions: FilePermissions) throws(Errno) {
        switch Syscall.nothing({ mkdir(path, permissions.rawValue) }) {
        case .success, .failure(.fileExists): return
        case .failure(let error): throw error
        }
    }
}
