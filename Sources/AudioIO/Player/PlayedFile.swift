import Dispatch
import FoundationEssentials
import Synchronization

/// What an ``AudioPlayer`` plays — a file, audio held in memory, or an address as it downloads — and what is known of
/// it, as `AVPlayerItem` is to `AVPlayer`: ``AudioPlayer/replaceCurrentItem(with:options:cache:)`` gives a player
/// another one.
///
/// **Thread safety**: its constants may be read anywhere; ``facts`` are under their own lock.
final class PlayedFile: @unchecked Sendable {
    /// The file or address played, or `nil` for audio held in memory.
    let url: URL?
    /// The audio played, for an item made from data.
    let data: Data?
    /// What the decoder opens: the file, the memory's file, or the address.
    let source: URL
    /// The memory's file, kept open as long as the item.
    private let memory: AnonymousFile?
    /// The download of an `http` or `https` address.
    let remote: RemoteAsset?
    /// The player's claim on all of it: the address is there to be played.
    private let wholeDownload: WholeDownloadClaim?
    /// The length in seconds and the channels: known at once for a file, once its header is here for an address.
    let facts = Mutex((duration: TimeInterval(0), channels: 0))
    /// Signalled once an address's header has downloaded or failed (and again by each waiter, for the next).
    let loadEnded = DispatchSemaphore(value: 0)
    /// A live HLS playlist's time line, shared by the files opened of it (to load it, and for each voice).
    let liveTimeline = LiveTimeline()

    /// The item of a file, its header read now, or of an address, its download started with `options`.
    ///
    /// - Throws: ``AudioFileError`` when the file cannot be read as audio, or the address is not one this library
    ///   downloads (or with `options`).
    static func open(_ url: URL, options: AudioAsset.Options, cache: RemoteCache) throws(AudioFileError) -> PlayedFile {
        if RemoteAsset.isRemote(url) { return PlayedFile(remote: try RemoteAsset.open(url, options: options, cache: cache)) }
        return try PlayedFile(source: url, url: url, data: nil, memory: nil)
    }

    /// The item of audio held in memory: the bytes of any file format ``AudioFile`` reads.
    ///
    /// - Throws: ``AudioFileError`` when the bytes are not audio.
    convenience init(data: Data) throws(AudioFileError) {
        let memory = try AnonymousFile(data)
        try self.init(source: memory.url, url: nil, data: data, memory: memory)
    }

    private init(source: URL, url: URL?, data: Data?, memory: AnonymousFile?) throws(AudioFileError) {
        let file = try AudioFile(forReading: source)
        guard file.frameCount > 0 else { throw AudioFileError(path: source.path, reason: .noAudio) }
        self.source = source
        self.url = url
        self.data = data
        self.memory = memory
        remote = nil
        wholeDownload = nil
        facts.withLock { $0 = (file.duration, file.channelCount) }
    }

    private init(remote asset: RemoteAsset) {
        source = asset.url
        url = asset.url
        data = nil
        memory = nil
        remote = asset
        wholeDownload = asset.claimWhole()
    }
}
