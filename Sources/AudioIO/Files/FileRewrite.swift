import FoundationEssentials
import SystemEdge
import SystemPackage

/// A file replaced by a new version of itself, written beside it: a hidden `.partial` file with the same permissions,
/// held locked (`flock`) while it is written, so that a memo store cleaning up after killed processes leaves it alone,
/// then synced and renamed over the file. A reader, or a process killed meanwhile, sees the old file or the new one;
/// the new one is removed when writing it fails.
enum FileRewrite {
    /// Writes the new version of the file at `url` through `write`, which is given the hidden file's location, then puts
    /// it in place; returns what `write` returns.
    ///
    /// - Throws: ``AudioFileError`` when the hidden file cannot be made, synced or renamed, and what `write` throws.
    static func replace<T>(_ url: URL, writing write: (URL) throws -> T) throws -> T {
        let path = url.path
        let mode = (try? FilePath(path).stat())?.permissions ?? [.ownerReadWrite]
        let temporary = AudioFileConverter.temporaryURL(beside: url)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                temporary.path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: mode)
        } catch {
            throw AudioFileError(path: path, creating: error as? Errno ?? .ioError)
        }
        defer { descriptor.unlockAndClose() }
        do {
            try descriptor.lockForWriting(path: path)
            let result = try write(temporary)
            try descriptor.sync()
            try FileNames.rename(temporary.path, to: path)
            try? DurableFile.syncDirectory(containing: path)
            return result
        } catch let error as Errno {
            FileNames.removeIgnoringFailure(temporary.path)
            throw AudioFileError(path: path, reason: .writeFailed(error.description))
        } catch {
            FileNames.removeIgnoringFailure(temporary.path)
            throw error
        }
    }
}
