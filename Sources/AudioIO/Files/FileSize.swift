import FoundationEssentials

extension FileManager {
    /// The size in bytes of the file at `path`, or `nil` when it cannot be read.
    ///
    /// FoundationEssentials gives the `.size` attribute as a `UInt`, not as the `NSNumber` of Foundation that
    /// any integer type could be cast from.
    package func sizeOfItem(atPath path: String) -> Int64? {
        ((try? attributesOfItem(atPath: path))?[.size] as? UInt).map(Int64.init)
    }
}
