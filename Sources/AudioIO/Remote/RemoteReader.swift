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

    /// A reader of `asset`, waiting for the server to say the file's length.
    init(_ asset: RemoteAsset) throws(DownloadError) {
        self.asset = asset
        byteCount = try asset.length()
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        do {
            return try asset.read(at: offset, into: buffer, waiting: isWaiting)
        } catch {
            failure = error
            return 0
        }
    }
}
