import Glibc
import SystemPackage

/// The entries of a directory, read in one pass without a `stat` for each: for a directory of thousands of files.
package enum DirectoryEntries {
    /// What the directory says an entry is, without looking at the file.
    package enum Kind: Sendable {
        case regularFile
        /// A directory, a symbolic link, a device, a FIFO or a socket.
        case other
        /// The file system does not say: `lstat` the entry to know.
        case unknown
    }

    /// Calls `body` with the name (its bytes, without the terminating zero; `.` and `..` included) and kind of each
    /// entry of the directory at `path`, in the directory's order.
    ///
    /// The corresponding C functions are `opendir`, `readdir` and `closedir`.
    ///
    /// - Throws: `Errno` when the directory cannot be opened, or cannot be read to its end: a listing cut short is
    ///   never taken for a whole one.
    package static func forEach(in path: String, _ body: (UnsafeBufferPointer<UInt8>, Kind) -> Void) throws(Errno) {
        guard let directory = opendir(path) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        while true {
            // `readdir` returns nil at the end and on an error alike; only an error sets errno.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw Errno(rawValue: errno) }
                return
            }
            let kind: Kind = switch Int(entry.pointee.d_type) {
            case Int(DT_REG): .regularFile
            case Int(DT_UNKNOWN): .unknown
            default: .other
            }
            withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                let name = bytes.bindMemory(to: UInt8.self)
                body(UnsafeBufferPointer(rebasing: name[..<(name.firstIndex(of: 0) ?? name.count)]), kind)
            }
        }
    }
}
