import FoundationEssentials
import SystemPackage

extension FileManager {
    /// The size in bytes of the file at `path`, or `nil` when it cannot be looked at.
    ///
    /// The corresponding C function is `stat`: `record` asks twenty times a second, and the attributes
    /// dictionary would also look up the owner's name each time (and gives the size as a `UInt`).
    package func sizeOfItem(atPath path: String) -> Int64? {
        // From the C string: a `FilePath` would normalise the path first, which a store's scan of a thousand memos
        // (a size each) spends most of its time on in a debug build.
        path.withCString { try? Stat($0) }?.size
    }
}
