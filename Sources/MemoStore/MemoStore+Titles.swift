import AudioIO
import FoundationEssentials

/// Titles the audio file cannot hold, kept beside it: `.<id>.title`, the whole title in UTF-8.
///
/// A file keeps at most ``AudioMetadata/maximumStoredTitleBytes`` of a title, and an Opus file keeps the title it was
/// recorded or imported with (a rename does not encode it again). The index has every title; the file beside the
/// audio is what a rebuilt index takes it from when the audio file's own is not the memo's.
extension MemoStore {
    /// Keeps `title` beside the audio of memo `id` when its file of `format` does not hold it whole (the file's title
    /// being `fileTitle`); removes what was kept otherwise. Called under the store's lock.
    func keepTitle(_ title: String, of id: String, fileTitle: String?) throws(MemoStoreError) {
        let path = titlePath(of: id)
        guard fileTitle != title else {
            DurableFile.removeQuietly(path)
            return
        }
        do {
            try DurableFile.write(Array(title.utf8), replacing: path, permissions: [.ownerReadWrite], syncing: true)
        } catch {
            throw .indexWriteFailed(path: path, reason: "\(error)")
        }
    }

    /// The title kept beside the audio of memo `id`, if there is one.
    func keptTitle(of id: String) -> String? {
        FileManager.default.contents(atPath: titlePath(of: id)).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The title a file written now with `title` holds.
    static func storedTitle(_ title: String) -> String {
        String(title.prefix(utf8Bytes: AudioMetadata.maximumStoredTitleBytes))
    }

    func titlePath(of id: String) -> String {
        directory.appendingPathComponent(".\(id).title").path
    }
}
