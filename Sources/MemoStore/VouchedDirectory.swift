import CFileSystem
import Glibc

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
        var system = statfs()
        guard statfs(path, &system) == 0, Self.localFileSystems.contains(UInt64(truncatingIfNeeded: system.f_type))
        else { return false }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(bitPattern: changedSeconds) <= Int64(now.tv_sec) - 2
    }

    /// ext2/3/4, XFS, Btrfs, tmpfs and F2FS, by their `statfs` magic numbers.
    private static let localFileSystems: Set<UInt64> = [
        UInt64(EXT4_SUPER_MAGIC), UInt64(XFS_SUPER_MAGIC), UInt64(BTRFS_SUPER_MAGIC), UInt64(TMPFS_MAGIC),
        UInt64(F2FS_SUPER_MAGIC),
    ]
}
