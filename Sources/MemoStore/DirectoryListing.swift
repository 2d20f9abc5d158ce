import SystemEdge
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
        var listing = Listing()
        try DirectoryEntries.forEach(in: path) { name, kind in
            if let key = Memo.fileKey(name) {
                let isRegular = switch kind {
                case .regularFile: true
                case .other: false
                case .unknown: (try? FilePath(path + "/" + Memo.fileName(forKey: key)).stat(followTargetSymlink: false))?.type == .regular
                }
                if isRegular {
                    listing.storeFiles.insert(key)
                    return
                }
            }
            let name = String(decoding: name, as: UTF8.self)
            if name != ".", name != ".." { listing.otherNames.append(name) }
        }
        return listing
    }
}
