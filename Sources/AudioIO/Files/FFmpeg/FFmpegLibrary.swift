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
        if let failure { throw FFmpegError(unavailable: failure) }
    }

    /// Loads the libraries for `feature` (e.g. "M4A"), or says in one sentence that it needs them and what to install.
    static func require(for feature: String) throws(MissingLibraryError) {
        if let failure { throw .ffmpeg(for: feature, reason: failure) }
    }

    /// Whether ``load()`` succeeded.
    static var isLoaded: Bool { failure == nil }

    /// `nil` once loaded, else the dynamic loader's sentence for what is missing.
    private static let failure: String? = {
        if let failure = cffmpeg_load() { return String(cString: failure) }
        av_log_set_level(AV_LOG_QUIET)
        return nil
    }()
}

extension MissingLibraryError {
    /// FFmpeg, which `feature` needs, could not be loaded: `reason` is the dynamic loader's sentence. The packages are
    /// Debian's for the libraries' major versions this was built with (`libavformat.so.59`: `libavformat59`).
    package static func ffmpeg(for feature: String, reason: String) -> MissingLibraryError {
        MissingLibraryError(
            feature: feature, library: "FFmpeg", reason: reason, unaffected: "the other formats work without it",
            packages: ["libavformat\(LIBAVFORMAT_VERSION_MAJOR)", "libavcodec\(LIBAVCODEC_VERSION_MAJOR)"])
    }
}
