import FoundationEssentials
import Synchronization
import SystemEdge

/// An audio file or `http(s)` address and what is known of it, as `AVURLAsset` is: made at once, without reading
/// anything; its properties are loaded asynchronously, once, and then known.
///
/// ```swift
/// let asset = AudioAsset(url: episode)
/// let (duration, metadata) = try await asset.load(.duration, .metadata)
/// ```
///
/// An address's header is downloaded for it, and 256 KiB more at most, not the whole file: the lengths of a list of
/// episodes cost their headers (what downloads is kept in the asset's ``RemoteCache``, where a player of the asset finds
/// it); a file's header is read from the disk. Its markers and chapters come with the header, but for a WAV's cue
/// points, kept after the audio: one range request fetches them. An address that needs request headers (a token, a
/// cookie) gets them from ``Options``, as `AVURLAsset(url:options:)` does:
///
/// ```swift
/// let asset = AudioAsset(url: episode, options: AudioAsset.Options(httpHeaderFields: ["Authorization": "Bearer \(token)"]))
/// ```
///
/// An address of a scheme of the app's own (`memo-enc://…`) gets its bytes from its ``resourceLoader``'s delegate,
/// and is then played, kept and sought as an `http` address is.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioAsset: Sendable {
    /// The file or address.
    public let url: URL
    /// How an address is asked for: the header fields and user agent of its every request.
    public let options: Options
    /// Where an address of a scheme other than `http` and `https` gets its bytes: set its delegate before the asset is
    /// loaded or played, as `AVURLAsset.resourceLoader`'s.
    public let resourceLoader = AssetResourceLoader()
    /// Where an address's bytes are kept.
    let cache: RemoteCache
    /// ``options`` with the asset's ``resourceLoader``: what its address is opened with.
    var openingOptions: Options {
        var options = options
        options.resourceLoader = LoaderReference(loader: resourceLoader)
        return options
    }
    /// What loading found, once it has: the header's facts, or why it cannot be read.
    private let loaded = Mutex<Result<Facts, AudioFileError>?>(nil)
    /// Held while the header is read: a second loader waits for the first, and finds what it found.
    private let loading = Mutex(())
    /// An address's download, kept from loading on, so that a player of the asset reads its header from there without
    /// asking the server again.
    private let download = Mutex<RemoteAsset?>(nil)

    /// What a loaded asset knows.
    struct Facts: Sendable {
        let duration: TimeInterval
        let channelCount: Int
        let sampleRate: Double
        let metadata: AudioMetadata
    }

    /// An asset of the file or address at `url`; nothing is read until a property is loaded, or a player plays it.
    ///
    /// - Parameters:
    ///   - url: A file's URL, an `http` or `https` address, or an address of another scheme, whose bytes the
    ///     ``resourceLoader``'s delegate gives.
    ///   - options: The header fields and user agent of an address's requests, as `AVURLAsset(url:options:)`'s;
    ///     unused for a file. A field that cannot be sent fails loading with
    ///     ``DownloadError/invalidHeaderField(_:)``.
    ///   - cache: Where an address's bytes are kept, and found when it is played again; unused for a file.
    public init(url: URL, options: Options = Options(), cache: RemoteCache = .shared) {
        self.url = url
        self.options = options
        self.cache = cache
    }

    /// A property of an asset that ``load(_:)`` loads, as `AVAsyncProperty`.
    public struct Property<Value: Sendable>: Sendable {
        fileprivate let value: @Sendable (Facts) -> Value
    }

    /// Loads `properties`, reading the file's header (an address's: downloading it) the first time, and returns their
    /// values in the order given, as `AVAsset.load(_:)` does.
    ///
    /// - Throws: ``AudioFileError`` when the file or address cannot be read as audio (a 404, a host not found, not audio).
    public func load<each Value: Sendable>(_ properties: repeat Property<each Value>) async throws(AudioFileError) -> (repeat each Value) {
        let facts = try await loadedFacts()
        return (repeat (each properties).value(facts))
    }

    /// What loading found, loading it on a thread of its own the first time; the caller's task waits without
    /// holding a thread.
    func loadedFacts() async throws(AudioFileError) -> Facts {
        if let result = loaded.withLock({ $0 }) { return try result.get() }
        let result = await withCheckedContinuation { continuation in
            SystemThread.detach(name: "audio-asset", realtime: false) { [self] in
                continuation.resume(returning: loadNow())
            }
        }
        return try result.get()
    }

    /// What loading found, loading it on this thread the first time (a second caller waits for the first).
    func loadNow() -> Result<Facts, AudioFileError> {
        loading.withLock { _ in
            if let result = loaded.withLock({ $0 }) { return result }
            let result = Result { () throws(AudioFileError) in
                let file = try AudioFile(forReading: url, options: openingOptions, cache: cache)
                download.withLock { $0 = file.remote?.asset }
                guard file.frameCount > 0 else { throw AudioFileError(path: RemoteAsset.displayName(of: url), reason: .noAudio) }
                return Facts(
                    duration: file.duration, channelCount: file.channelCount, sampleRate: file.sampleRate, metadata: file.metadata)
            }
            loaded.withLock { $0 = result }
            return result
        }
    }

    /// Fetches an address's first `seconds` (in proportion to its length, the header included), though nothing plays
    /// it yet: a queue's next item. Nothing for a file, or before the asset has loaded.
    func prefetch(seconds: TimeInterval) {
        guard case .success(let facts) = loaded.withLock({ $0 }), facts.duration > 0,
              let remote = download.withLock({ $0 }), let length = remote.progress.length else { return }
        remote.prefetch(upTo: Int64((Double(length) * min(seconds / facts.duration, 1)).rounded(.up)))
    }

    /// Bytes of an address downloaded so far by the asset's download (what the cache held is not counted).
    var bytesDownloaded: Int64 { download.withLock { $0?.bytesDownloaded } ?? 0 }

    /// What loading found, if it has ended.
    var facts: Result<Facts, AudioFileError>? { loaded.withLock { $0 } }
}

extension AudioAsset.Property where Value == TimeInterval {
    /// The length in seconds, as `AVAsset.duration`.
    public static var duration: Self { Self { $0.duration } }
}

extension AudioAsset.Property where Value == Bool {
    /// Whether it can be played: it loaded (a property that cannot be loaded throws instead), as `AVAsset.isPlayable`.
    public static var isPlayable: Self { Self { _ in true } }
}

extension AudioAsset.Property where Value == Int {
    /// Its channels.
    public static var channelCount: Self { Self { $0.channelCount } }
}

extension AudioAsset.Property where Value == Double {
    /// Its frames per second.
    public static var sampleRate: Self { Self { $0.sampleRate } }
}

extension AudioAsset.Property where Value == AudioMetadata {
    /// Its tags, chapters and markers, as `AVAsset.metadata`.
    public static var metadata: Self { Self { $0.metadata } }
}
