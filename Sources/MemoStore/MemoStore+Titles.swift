import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// Titles the audio file cannot hold, kept beside it: `.<id>.title`, the whole title in UTF-8 and a newline.
///
/// A file keeps at most ``AudioMetadata/maximumStoredTitleBytes`` of a title (and an Opus file whose stream cannot be
/// copied with a new comment header, one damaged before its end, keeps the title it had). The index has every title;
/// the file beside the audio is what a rebuilt index takes it from when the audio file's own is not the memo's.
extension MemoStore {
    /// Keeps `title` beside the audio of memo `id` when its file of `format` does not hold it whole (the file's title
    /// being `fileTitle`); removes what was kept otherwise. Called under the store's lock.
    func keepTitle(_ title: String, of id: String, fileTitle: String?) throws(MemoStoreError) {
        let path = titlePath(of: id)
        guard fileTitle != title else {
            FileNames.removeIgnoringFailure(path)
            return
        }
        do {
            // Rewritten in place, so that renaming a memo again leaves the directory as it is (and a store of thousands
            // is not read through for it). A write cut short leaves no newline at the end: no title is read from it.
            // Not synced on its own: the index's write that follows is, and on ext4 (ordered data) that takes this
            // with it; elsewhere a power cut may leave the title before, which only an index rebuilt at once would see.
            let descriptor = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate, .noFollow, .closeOnExec], permissions: [.ownerReadWrite])
            try descriptor.closeAfter { _ = try descriptor.writeAll(Array(title.utf8) + [UInt8(ascii: "\n")]) }
        } catch {
            throw .indexWriteFailed(path: path, reason: "\(error)")
        }
    }

    /// The title kept beside the audio of memo `id`, if there is one, whole.
    func keptTitle(of id: String) -> String? {
        guard let bytes = try? DurableFile.contents(of: titlePath(of: id)), bytes.last == UInt8(ascii: "\n") else { return nil }
        return String(validating: bytes.dropLast(), as: UTF8.self)
    }

    /// The title a file written now with `title` holds.
    static func storedTitle(_ title: String) -> String {
        String(title.prefix(utf8Bytes: AudioMetadata.maximumStoredTitleBytes))
    }

    func titlePath(of id: String) -> String {
        directory.appendingPathComponent(".\(id).title").path
    }
}
