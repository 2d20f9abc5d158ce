import Glibc
import SystemPackage

/// Why a file could not be locked.
package enum FileLockError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file to lock could not be opened or created: there is none (`Errno.noSuchFileOrDirectory`, when it was not
    /// to be created), its permissions, a read-only file system.
    case cannotOpen(Errno)
    /// Another open file holds a lock that conflicts: another process, or another open of the same file in this one.
    /// Only when the lock was not to be waited for.
    ///
    /// The corresponding C error is `EWOULDBLOCK`.
    case heldElsewhere
    /// The system keeps no lock for the file: out of memory for locks (`ENOLCK`), or a file system without them.
    case refused(Errno)

    package var description: String {
        switch self {
        case .cannotOpen(let error): "cannot open it (\(error))"
        case .heldElsewhere: "another process holds it"
        case .refused(let error): "cannot lock it (\(error))"
        }
    }
}

extension FileDescriptor {
    /// Whether other open files may hold the lock too.
    package enum LockKind: Sendable {
        /// Any number of open files hold it at once; none holds the exclusive lock meanwhile.
        case shared
        /// One open file holds it.
        case exclusive
    }

    /// Takes an advisory lock on the open file, or converts the one it holds to `kind`.
    ///
    /// The lock belongs to the open file, not to the descriptor or the process: a second open of the same file, even
    /// in this process, does not share it, and a descriptor duplicated or inherited does. It lasts until ``unlock()``,
    /// or until every descriptor of the open file is closed (the process ending closes them).
    ///
    /// The corresponding C function is `flock`, with `LOCK_SH` or `LOCK_EX`, and `LOCK_NB` unless `wait`.
    ///
    /// - Parameters:
    ///   - kind: Shared or exclusive.
    ///   - wait: Whether to wait as long as another open file holds a lock that conflicts; a signal does not end the
    ///     wait.
    /// - Throws: ``FileLockError/heldElsewhere`` when not waiting and another open file holds a lock that conflicts,
    ///   ``FileLockError/refused(_:)`` when the system keeps no lock for the file.
    package func lock(_ kind: LockKind = .exclusive, wait: Bool) throws(FileLockError) {
        let operation = (kind == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        switch Syscall.nothing({ flock(rawValue, operation) }) {
        case .success: return
        case .failure(.wouldBlock): throw .heldElsewhere
        case .failure(let error):
            precondition(error != .badFileDescriptor, "flock on a descriptor that is not open")
            throw .refused(error)
        }
    }

    /// Releases the lock this open file holds (if any), at once rather than when its last descriptor closes: a child
    /// process started meanwhile shares the open file until it runs its program, and would hold the lock until then.
    ///
    /// The corresponding C function is `flock` with `LOCK_UN`, which fails only for a descriptor that is not open: a
    /// programmer error, which traps.
    package func unlock() {
        let result = Syscall.nothing { flock(rawValue, LOCK_UN) }
        precondition((try? result.get()) != nil, "flock(LOCK_UN) failed: \(result)")
    }

    /// Releases the lock this open file holds, if any (see ``unlock()``), then closes the descriptor: how a descriptor
    /// that may hold a lock is closed.
    package func unlockAndClose() {
        unlock()
        try? close()
    }
}

/// A lock file: a file opened only to hold its exclusive lock (see ``FileDescriptor/lock(_:wait:)``), released by
/// ``unlock()`` or when the process ends.
///
/// What a memo store's `.lock` and `.<id>.recording` are, and a download cache's `lock`.
package struct FileLock: Sendable {
    private let descriptor: FileDescriptor

    /// Opens the file at `path`, creating it (mode 0600) when `creating`, never through a symbolic link, and takes its
    /// exclusive lock, waiting for it as long as another open file holds it unless not `wait`.
    ///
    /// - Throws: ``FileLockError``: the file cannot be opened, another open file holds the lock (not waiting), the
    ///   system keeps no lock for it. The file is closed then.
    package init(path: String, creating: Bool, wait: Bool) throws(FileLockError) {
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite, options: creating ? [.create, .closeOnExec, .noFollow] : [.closeOnExec, .noFollow],
                permissions: creating ? [.ownerReadWrite] : nil)
        } catch {
            throw .cannotOpen(error as? Errno ?? .ioError)
        }
        do {
            try descriptor.lock(.exclusive, wait: wait)
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    /// Releases the lock, then closes the file.
    package func unlock() {
        descriptor.unlockAndClose()
    }
}
