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

    /// What one try for the lock on an existing file found.
    enum Attempt {
        /// The lock is ours now.
        case acquired(FileLock)
        /// Another open file holds it: a process that is alive.
        case held
        /// There is no such file.
        case missing
    }

    /// Waits up to `timeout` seconds for the lock on `path`, creating the file (0600) if needed.
    ///
    /// The corresponding C function is `flock` with `LOCK_EX | LOCK_NB`, polled.
    init(path: String, storePath: String, timeout: Double = 10) throws(MemoStoreError) {
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite, options: [.create, .closeOnExec, .noFollow], permissions: [.ownerReadWrite])
        } catch {
            throw .directoryUnusable(path: storePath, reason: "cannot open its lock file (\(error))")
        }
        var waited = 0.0
        while let failure = Self.tryLock(descriptor) {
            guard failure == .wouldBlock else {
                try? descriptor.close()
                throw .directoryUnusable(path: storePath, reason: "cannot lock it (\(failure))")
            }
            guard waited < timeout else {
                try? descriptor.close()
                throw .locked(path: storePath)
            }
            usleep(10_000)
            waited += 0.01
        }
    }

    private init(descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Tries once for the lock on the file at `path`, without waiting and without creating the file.
    ///
    /// A file that exists but cannot be opened or locked counts as ``Attempt/held``: whoever made it is
    /// taken to be alive.
    static func attempt(path: String) -> Attempt {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readWrite, options: [.closeOnExec, .noFollow])
        } catch {
            return error as? Errno == .noSuchFileOrDirectory ? .missing : .held
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
