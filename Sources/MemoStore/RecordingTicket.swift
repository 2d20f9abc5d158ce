import AudioIO
import FoundationEssentials
import Synchronization
import SystemEdge

/// A recording in progress in this process: the memo listed for it, in state ``Memo/State/recording``,
/// and the lock on its file `.<id>.recording` in the store that tells every other process the recording
/// is alive.
///
/// Get one from ``MemoStore/beginRecording(title:settings:artist:album:comment:)``, record into ``fileURL`` with an
/// `AudioFileWriter` (or an `AudioRecorder`) made from ``settings`` and ``metadata`` (permissions `0o600`), close the
/// writer, then hand the ticket to ``MemoStore/finishRecording(_:summary:markers:)``. The lock is held for as long as the
/// ticket lives: if the process dies, or the ticket is released without being finished, the next read of
/// the store finds the lock free and lists the memo as ``Memo/State/recovered``, with the audio that
/// reached the disk.
///
/// **Thread safety**: a ticket may be passed between threads and used from any of them.
public final class RecordingTicket: Sendable {
    /// The memo as it is listed while recording: id, title, creation date, file name, format, rate and
    /// channels are final; duration 0, size 0 and levels at −160 dBFS until it is finished.
    public let memo: Memo
    /// The audio file to record into: `<id>.<format>` in the store.
    public let fileURL: URL
    /// How to write the file: what ``memo`` lists.
    public let settings: AudioSettings

    private let lock: Mutex<FileLock?>

    init(memo: Memo, fileURL: URL, settings: AudioSettings, lock: FileLock) {
        self.memo = memo
        self.fileURL = fileURL
        self.settings = settings
        self.lock = Mutex(lock)
    }

    deinit { release() }

    /// Title, creation date, artist, album and comment to write into the file, so that the index can be rebuilt from it.
    public var metadata: AudioMetadata { memo.metadata }

    /// Releases the recording lock; later calls do nothing.
    func release() {
        lock.withLock { lock in
            lock?.unlock()
            lock = nil
        }
    }
}
