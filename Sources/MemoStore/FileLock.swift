import Glibc
import SystemPackage

/// An exclusive advisory lock (`flock(2)`) on a file in the store: `.lock`, held while the index is read,
/// changed and written, so concurrent `voicememo` processes never lose each other's changes; and
/// `.<id>.recording`, held by a recording process for as long as it records.
///
/// The lock belongs to the open file, so a second open of the same file, even in the same process, does
/// not get it. It is released when ``unlock()`` is called or the process dies, whichever comes first.
struct FileLock: Sendable {
    private let descriptor: FileDescriptor

    /// What one try for the lock on a file found.
    enum Attempt {
        /// The lock is ours now.
        case acquired(FileLock)
        /// Another open file holds it: a process that is alive.
        case held
        /// There is no such file.
        case missing
        /// The file cannot be opened or created for locking (a read-only file system, its permissions).
        case unavailable(Errno)
    }

    /// Waits for the lock on `path` for as long as another process holds it, creating the file (0600) if needed: a
    /// writer waits its turn rather than failing.
    ///
    /// The corresponding C function is `flock` with `LOCK_EX`.
    ///
    /// - Throws: ``MemoStoreError/readOnly(path:)`` when the store is on a read-only file system,
    ///   ``MemoStoreError/notWritable(path:reason:)`` when this process may not create or open the file.
    init(path: String, storePath: String) throws(MemoStoreError) {
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite, options: [.create, .closeOnExec, .noFollow], permissions: [.ownerReadWrite])
        } catch {
            throw MemoStoreError(changing: storePath, error as? Errno ?? .ioError)
        }
        while flock(descriptor.rawValue, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let failure = Errno(rawValue: errno)
                try? descriptor.close()
                throw .notWritable(path: storePath, reason: "cannot lock it (\(failure))")
            }
        }
    }

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Tries once for the lock on the file at `path`, without waiting, creating the file (0600) when `creating`.
    ///
    /// Without `creating`, a file that exists but cannot be opened or locked counts as ``Attempt/held``: whoever made
    /// it is taken to be alive.
    static func attempt(path: String, creating: Bool = false) -> Attempt {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite, options: creating ? [.create, .closeOnExec, .noFollow] : [.closeOnExec, .noFollow],
                permissions: creating ? [.ownerReadWrite] : nil)
        } catch {
            let error = error as? Errno ?? .ioError
            if creating { return .unavailable(error) }
            return error == .noSuchFileOrDirectory ? .missing : .held
        }
        guard tryLock(descriptor) == nil else {
            try? descriptor.close()
            return .held
        }
        return .acquired(FileLock(descriptor: descriptor))
    }

    /// Takes the lock if it is free: `nil` when taken, else why not (`wouldBlock` when another open file
    /// holds it).
    private static func tryLock(_ descriptor: FileDescriptor) -> Errno? {
        while flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return Errno(rawValue: errno) }
        }
        return nil
    }

    /// Releases the lock, then closes the file.
    ///
    /// The corresponding C function is `flock` with `LOCK_UN`. Closing alone would not do: while another
    /// thread of this process starts a program, the new process shares the open file until it runs the
    /// program, and the lock would stay held by it until then.
    func unlock() {
        flock(descriptor.rawValue, LOCK_UN)
        try? descriptor.close()
    }
}
