import CFFmpeg
import FoundationEssentials

/// The addresses a demuxer opens while it reads an address: an HLS playlist's segments (and the playlists it names).
/// Each is opened as any address is (``RemoteAsset``), with the playlist's request headers and trust and in its cache,
/// never by FFmpeg's own HTTP client; a segment that cannot be had is kept as ``failure``.
///
/// **Not thread-safe**: FFmpeg calls it on the thread reading the playlist.
final class NestedAddresses {
    private let options: AudioAsset.Options
    private let cache: RemoteCache
    /// The address of the playlist read, which the cache lists what it opens under.
    private let playlist: URL
    /// The I/O contexts open, with what they read.
    private var opened: [UnsafeMutablePointer<AVIOContext>: (position: BytePosition, reader: RemoteReader)] = [:]
    /// Why the last address that could not be opened or read failed.
    private(set) var failure: DownloadError?
    /// The windows of the playlists opened (a live one's, each time the demuxer reads it again), oldest first, until
    /// taken.
    var windowsRead: [PlaylistWindow] = []

    /// What `playlist`'s demuxer opens: addresses with its options, in its cache.
    init(of playlist: RemoteAsset) {
        options = playlist.options
        cache = playlist.cache
        self.playlist = playlist.url
    }

    deinit {
        for context in opened.keys { close(context) }
    }

    /// Has `format` open and close what it names through this.
    func serve(_ format: UnsafeMutablePointer<AVFormatContext>) {
        format.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        format.pointee.io_open = { format, context, url, _, _ in
            guard let format, let context, let url, let nested = NestedAddresses.of(format) else { return cffmpeg_error_io() }
            return nested.open(String(cString: url), into: context)
        }
        format.pointee.io_close2 = { format, context in
            guard let format, let context, let nested = NestedAddresses.of(format) else { return 0 }
            nested.close(context)
            return 0
        }
    }

    private static func of(_ format: UnsafeMutablePointer<AVFormatContext>) -> NestedAddresses? {
        format.pointee.opaque.map { Unmanaged<NestedAddresses>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Opens `address` into `context`: 0, or FFmpeg's I/O error.
    private func open(_ address: String, into context: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        guard let url = URL(string: address), RemoteAsset.isHTTP(url) else {
            failure = .unsupportedAddress("'\(address)'")
            return cffmpeg_error_io()
        }
        do {
            // A playlist may be a live one's, rewritten as it goes: fetched anew (or found unchanged) each time.
            let isPlaylist = ["m3u8", "m3u"].contains(url.pathExtension.lowercased())
            let reader = try RemoteReader(RemoteAsset.open(url, options: options, cache: cache, fresh: isPlaylist, partOf: playlist))
            if isPlaylist, let window = PlaylistWindow(bytes: reader) { windowsRead.append(window) }
            let position = BytePosition(reader)
            guard let opened = FFmpegInput.context(reading: position) else { return cffmpeg_error_io() }
            self.opened[opened] = (position, reader)
            context.pointee = opened
            return 0
        } catch let error as AudioFileError {
            if case .downloadFailed(let reason) = error.reason { failure = reason }
            return cffmpeg_error_io()
        } catch {
            failure = error as? DownloadError
            return cffmpeg_error_io()
        }
    }

    private func close(_ context: UnsafeMutablePointer<AVIOContext>) {
        guard let (_, reader) = opened.removeValue(forKey: context) else { return }
        if let failed = reader.failure { failure = failed }
        var context: UnsafeMutablePointer<AVIOContext>? = context
        av_freep(&context!.pointee.buffer)
        avio_context_free(&context)
    }
}
