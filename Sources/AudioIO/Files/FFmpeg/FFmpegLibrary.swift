import CFFmpeg

/// FFmpeg's libraries, opened the first time a file needs them rather than when the process starts (`cffmpeg_load`):
/// linked, they and the hundred libraries they bring cost every start of the process more than the rest of it.
///
/// Every way into FFmpeg calls ``load()`` before anything else of it: ``FFmpegDecoder/open(_:path:)``,
/// ``ChapterCopy``, ``M4AEncoder`` and ``FFmpegInput/versions``; ``FFmpegInput``, ``FFmpegOutput`` and
/// ``FFmpegAACEncoder`` expect it done.
enum FFmpegLibrary {
    /// Loads the libraries, once, and quiets their log: it goes to standard error unless told otherwise, and their
    /// errors reach callers as values instead.
    ///
    /// - Throws: ``FFmpegError`` with the dynamic loader's sentence when they cannot be loaded.
    static func load() throws(FFmpegError) {
        if let failure = loading { throw failure }
    }

    /// Whether ``load()`` succeeded.
    static var isLoaded: Bool { loading == nil }

    private static let loading: FFmpegError? = {
        if let failure = cffmpeg_load() { return FFmpegError(unavailable: String(cString: failure)) }
        av_log_set_level(AV_LOG_QUIET)
        return nil
    }()
}
