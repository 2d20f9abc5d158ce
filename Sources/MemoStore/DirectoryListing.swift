import CFileSystem
import Glibc

/// The entries of a directory in one pass, for a store that may hold thousands of memos, and when they need not be
/// read again.
enum DirectoryListing {
    /// Every name in the directory at `path` but `.` and `..`, and whether it is a regular file (not a
    /// link, a directory or the like): `readdir`'s file types, with `lstat` only where the file system
    /// gives none. Empty when the directory cannot be read.
    static func entries(at path: String) -> [(name: String, isRegularFile: Bool)] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var entries: [(name: String, isRegularFile: Bool)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name != ".", name != ".." else { continue }
            var isRegular = Int32(entry.pointee.d_type) == DT_REG
            if Int32(entry.pointee.d_type) == DT_UNKNOWN {
                var status = stat()
                isRegular = lstat(path + "/" + name, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
            }
            entries.append((name, isRegular))
        }
        return entries
    }
}

extension MemoIndexCache.Identity {
    /// Whether any later change to the entries of the directory at `path`, which has this identity now, is sure to
    /// give it another: so that, as git's untracked cache does, a directory that keeps this identity need not be
    /// read again.
    ///
    /// Creating, removing or renaming an entry sets the directory's modification time to the current time, but
    /// only as finely as the file system keeps time (a second on ext4 with small inodes, two on FAT), so a time
    /// within the last two seconds could be given again to a change still to come. And only local file systems
    /// are believed: a network file system may answer from cached attributes, blind to another machine's change.
    func revealsLaterChanges(ofDirectoryAt path: String) -> Bool {
        var system = statfs()
        guard statfs(path, &system) == 0, Self.localFileSystems.contains(UInt64(truncatingIfNeeded: system.f_type))
        else { return false }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(bitPattern: modifiedSeconds) <= Int64(now.tv_sec) - 2
    }

    /// ext2/3/4, XFS, Btrfs, tmpfs and F2FS, by their `statfs` magic numbers.
    private static let localFileSystems: Set<UInt64> = [
        UInt64(EXT4_SUPER_MAGIC), UInt64(XFS_SUPER_MAGIC), UInt64(BTRFS_SUPER_MAGIC), UInt64(TMPFS_MAGIC),
        UInt64(F2FS_SUPER_MAGIC),
    ]
}
