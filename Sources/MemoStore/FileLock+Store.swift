import SystemEdge
import SystemPackage

/// The store's locks: `lock`, in the machine's state of the store, held while the index is read, changed and written
/// and the store changed, so concurrent `voicememo` processes of a machine never lose each other's changes; and `.<id>.recording`, held by a recording process for as long as it records.
extension FileLock {
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

    /// Waits for the lock on `path`, a file of the store at `storePath`, for as long as another process holds it,
    /// creating the file (0600) if needed: a writer waits its turn rather than failing.
    ///
    /// - Throws: ``MemoStoreError/readOnly(path:)`` when the store is on a read-only file system,
    ///   ``MemoStoreError/notWritable(path:reason:)`` when this process may not create, open or lock the file.
    init(path: String, storePath: String) throws(MemoStoreError) {
        do {
            try self.init(path: path, creating: true, wait: true)
        } catch .cannotOpen(let error) {
            throw MemoStoreError(changing: storePath, error)
        } catch {
            throw .notWritable(path: storePath, reason: error.description)
        }
    }

    /// Tries once for the lock on the file at `path`, without waiting, creating the file (0600) when `creating`.
    ///
    /// Without `creating`, a file that exists but cannot be opened or locked counts as ``Attempt/held``: whoever made
    /// it is taken to be alive.
    static func attempt(path: String, creating: Bool = false) -> Attempt {
        do {
            return .acquired(try FileLock(path: path, creating: creating, wait: false))
        } catch .cannotOpen(let error) {
            if creating { return .unavailable(error) }
            return error == .noSuchFileOrDirectory ? .missing : .held
        } catch {
            return .held
        }
    }
}
