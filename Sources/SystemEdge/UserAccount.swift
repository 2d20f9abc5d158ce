import Glibc

/// The account this process runs as.
package enum UserAccount {
    /// The home directory the password database lists for the process's user, if it lists one.
    ///
    /// The corresponding C functions are `getpwuid_r` and `getuid`.
    package static var homeDirectory: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        // The entry's strings point into the buffer: read them while it is held.
        return buffer.withUnsafeMutableBufferPointer { buffer in
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(getuid(), &entry, buffer.baseAddress!, buffer.count, &result) == 0, result != nil,
                  let directory = entry.pw_dir
            else { return nil }
            return String(cString: directory)
        }
    }
}
