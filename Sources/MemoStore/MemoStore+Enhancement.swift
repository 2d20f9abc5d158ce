import AudioIO
import FoundationEssentials

extension MemoStore {
    /// Makes a new memo of `memo`'s audio with its speech cleaned up (see `SpeechEnhancement`: noise suppressed, gain
    /// adjusted), in the same format, rate and channels; `memo` stays as it is.
    ///
    /// The new memo keeps `memo`'s date (it is the same recording), so that it is listed beside it, and its artist,
    /// album, comment and markers. Its file is written
    /// before the store's lock is taken and listed in one hold of it, as an import is.
    ///
    /// - Parameters:
    ///   - memo: A memo of this store, mono or stereo.
    ///   - title: The new memo's title; `nil` gives `memo`'s with " (enhanced)" after it.
    ///   - enhancement: How to clean up the speech.
    /// - Returns: The new memo.
    /// - Throws: ``MemoStoreError/recordingInProgress(_:)`` while `memo` is being recorded, `AudioFileError` when its
    ///   audio cannot be read, the new file cannot be written, or it has more than two channels; other
    ///   ``MemoStoreError``s for the index.
    public func enhance(_ memo: Memo, title: String? = nil, enhancement: SpeechEnhancement = SpeechEnhancement()) throws -> Memo {
        try requireChangeable()
        try memo.requireWhole()
        let settings = AudioSettings(preserving: try AudioFile(forReading: fileURL(of: memo)))
        let id = Memo.newID(unlike: try memos())
        let newTitle = title ?? memo.title + " (enhanced)"
        let destination = directory.appendingPathComponent(Memo.fileName(id: id, format: settings.format))
        let source = fileURL(of: memo)
        // The same recording, the same length: its tags and markers hold for the new one.
        var metadata = memo.metadata
        metadata.title = newTitle
        let staged = try AudioFileConverter.stage(
            reading: AudioFileConverter.openLinks(of: source), of: source, beside: destination, settings: settings,
            metadata: metadata, speechEnhancement: enhancement, permissions: [.ownerReadWrite], measuringLoudness: true)
        return try add(staged, as: Memo(id: id, format: settings.format, metadata: metadata, summary: staged.summary))
    }
}
