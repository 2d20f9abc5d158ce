import Glibc
import SystemPackage

/// The entries of a directory in one pass, for a store that may hold thousands of memos.
enum DirectoryListing {
    /// What a directory holds, as the store needs it.
    struct Listing {
        /// The regular files named as the store names audio files, by ``Memo/fileKey(_:)``.
        var storeFiles: Set<UInt64> = []
        /// Every other name but `.` and `..`.
        var otherNames: [String] = []
    }

    /// What the directory at `path` holds, read in one pass: a name counts as a store file only when it is a regular
    /// file (not a link, a directory or the like), by `readdir`'s file types, with `lstat` only where the file system
    /// gives none.
    ///
    /// - Throws: the C library's error when the directory cannot be read to its end: a listing cut short would
    ///   make the store drop the memos it missed.
    static func scan(at path: String) throws(Errno) -> Listing {
        guard let directory = opendir(path) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        var listing = Listing()
        while true {
            // `readdir` returns nil at the end and on an error alike; only an error sets errno.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw Errno(rawValue: errno) }
                return listing
            }
            let key = withUnsafeBytes(of: entry.pointee.d_name) { bytes -> UInt64? in
                let name = bytes.bindMemory(to: UInt8.self)
                return Memo.fileKey(UnsafeBufferPointer(rebasing: name[..<(name.firstIndex(of: 0) ?? name.count)]))
            }
            if let key {
                var isRegular = Int32(entry.pointee.d_type) == DT_REG
                if Int32(entry.pointee.d_type) == DT_UNKNOWN {
                    var status = stat()
                    isRegular = lstat(path + "/" + Memo.fileName(forKey: key), &status) == 0 && status.st_mode & S_IFMT == S_IFREG
                }
                if isRegular {
                    listing.storeFiles.insert(key)
                    continue
                }
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != ".", name != ".." { listing.otherNames.append(name) }
        }
    }
}
