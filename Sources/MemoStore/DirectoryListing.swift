import Glibc

/// The entries of a directory in one pass, for a store that may hold thousands of memos.
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
