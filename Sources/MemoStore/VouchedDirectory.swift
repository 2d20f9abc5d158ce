import FoundationEssentials
import SystemEdge

/// When `.memos.cache` may vouch for the store directory (see ``MemoIndexCache``).
extension MemoIndexCache.Identity {
    /// Whether any later change to the entries of the directory at `path`, which has this identity now, is sure to
    /// give it another, so that, as with git's untracked cache, a directory that keeps this identity need not be
    /// read again.
    ///
    /// Creating, removing or renaming an entry sets the directory's change time to the current time, as finely as
    /// the file system keeps time (a second on ext4 with small inodes): the change time must be two seconds old, or
    /// a change still to come could get the same one. The change time, because no program can set it back (`touch`
    /// and `rsync -a` set the modification time). Only local file systems are believed: a network file system may
    /// answer from cached attributes, blind to another machine's change. A clock stepped back across the recorded
    /// time could still repeat it; git accepts that too.
    func revealsLaterChanges(ofDirectoryAt path: String) -> Bool {
        guard LocalFileSystem.holds(path) else { return false }
        return Int64(bitPattern: changedSeconds) <= Int64(Date().timeIntervalSince1970.rounded(.down)) - 2
    }
}
