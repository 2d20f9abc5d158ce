import FoundationEssentials
import SystemEdge
import SystemPackage

/// What the copiers of packets (an Opus stream's, an M4A's AAC) share: the temporary file they write beside the
/// destination, and its staging once written.
extension AudioFileConverter {
    /// A new hidden file beside `destination`, open for writing and locked while it is written, as AudioFileWriter
    /// holds its file: a store cleaning up after killed processes leaves it alone.
    ///
    /// - Throws: ``AudioFileError`` when `destination` is there but not a regular file, or the file cannot be made or
    ///   locked.
    static func openLockedTemporary(
        beside destination: URL, permissions: FilePermissions
    ) throws(AudioFileError) -> (url: URL, output: FileDescriptor) {
        if let status = try? FilePath(destination.path).stat(), let kind = AudioFile.kindIfNotRegular(status.type) {
            throw AudioFileError(path: destination.path, reason: .notAFileToReplace(kind))
        }
        let temporary = temporaryURL(beside: destination)
        let output: FileDescriptor
        do {
            output = try FileDescriptor.open(
                temporary.path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: permissions)
        } catch {
            throw AudioFileError(path: destination.path, creating: error as? Errno ?? .ioError)
        }
        do {
            try output.lockForWriting(path: destination.path)
        } catch {
            try? output.close()
            FileNames.removeIgnoringFailure(temporary.path)
            throw error
        }
        return (temporary, output)
    }

    /// `temporary`, written and synced, staged to be placed at `destination`; removed when it cannot be.
    static func stageWritten(_ temporary: URL, for destination: URL) throws(AudioFileError) -> StagedAudioFile {
        do {
            return try StagedAudioFile(url: temporary, for: destination)
        } catch {
            FileNames.removeIgnoringFailure(temporary.path)
            throw error
        }
    }
}
