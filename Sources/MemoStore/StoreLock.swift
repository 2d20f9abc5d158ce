import Glibc
import SystemPackage

/// An exclusive advisory lock on the store (`flock(2)` on its `.lock` file), held while the index is read,
/// changed and written, so concurrent `voicememo` processes never lose each other's changes.
///
/// The lock is released when ``unlock()`` is called or the process dies, whichever comes first.
struct StoreLock {
    private let descriptor: FileDescriptor

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
        while flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                try? descriptor.close()
                throw .directoryUnusable(path: storePath, reason: "cannot lock it (\(Errno(rawValue: failure)))")
            }
            guard waited < timeout else {
                try? descriptor.close()
                throw .locked(path: storePath)
            }
            usleep(10_000)
            waited += 0.01
        }
    }

    /// Releases the lock.
    func unlock() {
        try? descriptor.close()
    }
}
