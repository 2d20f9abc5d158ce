import CFileSystem
import Glibc

/// Whether a file lives on a file system of this machine, whose attributes are the truth, rather than a network file
/// system's, which may answer from a cache blind to another machine's change.
package enum LocalFileSystem {
    /// Whether the file at `path` is on ext2/3/4, XFS, Btrfs, tmpfs or F2FS; false when it cannot be looked at.
    ///
    /// The corresponding C function is `statfs`, its file system by its magic number.
    package static func holds(_ path: String) -> Bool {
        var system = statfs()
        guard (try? Syscall.nothing({ statfs(path, &system) }).get()) != nil else { return false }
        return magicNumbers.contains(UInt64(truncatingIfNeeded: system.f_type))
    }

    private static let magicNumbers: Set<UInt64> = [
        UInt64(EXT4_SUPER_MAGIC), UInt64(XFS_SUPER_MAGIC), UInt64(BTRFS_SUPER_MAGIC), UInt64(TMPFS_MAGIC),
        UInt64(F2FS_SUPER_MAGIC),
    ]
}
