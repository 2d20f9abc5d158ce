import CFFmpeg

/// A failure reported by FFmpeg's libraries: a negative `AVERROR` code and FFmpeg's sentence for it.
///
/// The corresponding C function is `av_strerror`. It stays inside `Files/FFmpeg/`: what leaves is an
/// ``AudioFileError``.
struct FFmpegError: Error, CustomStringConvertible {
    /// FFmpeg's code: a negated errno or one of its `AVERROR_*` tags.
    let code: Int32
    /// FFmpeg's sentence for the code, e.g. "Invalid data found when processing input".
    let message: String

    init(code: Int32) {
        self.code = code
        var text = [CChar](repeating: 0, count: 128)
        message = av_strerror(code, &text, text.count) == 0
            ? String(decoding: text.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self) : "error \(code)"
    }

    /// FFmpeg's libraries could not be loaded: `reason` is the dynamic loader's sentence (``FFmpegLibrary``).
    init(unavailable reason: String) {
        code = cffmpeg_error_unavailable()
        message = "FFmpeg could not be loaded (\(reason)); install its libavformat and libavcodec"
    }

    var description: String { message }

    /// The decoder wants another packet before it has a frame to give (`AVERROR(EAGAIN)`).
    var isAgain: Bool { code == cffmpeg_error_again() }
    /// The end of the stream (`AVERROR_EOF`).
    var isEnd: Bool { code == cffmpeg_error_eof() }
    /// The bytes are not what the format says they should be (`AVERROR_INVALIDDATA`).
    var isInvalidData: Bool { code == cffmpeg_error_invalid_data() }

    /// Throws the error for `code` when it is negative; returns it otherwise (a count or an index).
    @discardableResult
    static func check(_ code: Int32) throws(FFmpegError) -> Int32 {
        if code < 0 { throw FFmpegError(code: code) }
        return code
    }
}
