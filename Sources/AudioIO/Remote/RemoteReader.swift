import Atomics

/// One open file's reader of a ``RemoteAsset``: reads block until their bytes are downloaded, and a failed download
/// reads as an end, kept in ``failure`` so that ``AudioFile`` reports it instead of a short file.
///
/// **Threads**: one thread reads (the file's); ``isWaiting`` may be read from any.
final class RemoteReader: RandomAccessBytes, @unchecked Sendable {
    let asset: RemoteAsset
    let byteCount: Int64
    /// True while a read waits for bytes to download: the reading thread (a player's decoder) is starved of them.
    let isWaiting = ManagedAtomic<Bool>(false)
    /// Why the last read came back empty, when the download failed.
    private(set) var failure: DownloadError?
    /// Set by ``cancel()``: reads return at once, as at an end.
    private let isCancelled = ManagedAtomic<Bool>(false)

    /// A reader of `asset`, waiting for the server to say the file's length.
    init(_ asset: RemoteAsset) throws(DownloadError) {
        self.asset = asset
        byteCount = try asset.length()
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        do {
            return try asset.read(at: offset, into: buffer, waiting: isWaiting, cancelled: isCancelled)
        } catch {
            failure = error
            return 0
        }
    }
}

extension RemoteReader {
    /// Ends a read waiting for bytes, and every read after it, as at the end of the file: for a reader whose file is
    /// let go (a player's decoder stopped by a seek), which would otherwise wait on for bytes no one wants. Any thread.
    func cancel() {
        isCancelled.store(true, ordering: .releasing)
        asset.wakeReaders()
    }
}
