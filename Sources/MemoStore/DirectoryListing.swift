import Glibc
import SystemPackage

/// The entries of a directory in one pass, for a store that may hold thousands of memos.
enum DirectoryListing {
    /// Every name in the directory at `path` but `.` and `..`, and whether it is a regular file (not a
    /// link, a directory or the like): `readdir`'s file types, with `lstat` only where the file system
    /// gives none.
    ///
    /// - Throws: the C library's error when the directory cannot be read to its end: a listing cut short would
    ///   make the store drop the memos it missed.
    static func entries(at path: String) throws(Errno) -> [(name: String, isRegularFile: Bool)] {
        guard let directory = opendir(path) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        var entries: [(name: String, isRegularFile: Bool)] = []
        while true {
            // `readdir` returns nil at the end and on an error alike; only an error sets errno.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw Errno(rawValue: errno) }
                break
            }
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
