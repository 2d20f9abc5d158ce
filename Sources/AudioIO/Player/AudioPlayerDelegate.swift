/// Receives an ``AudioPlayer``'s events, as `AVAudioPlayerDelegate` does, and those a player UI watches `AVPlayer` for
/// (its time control status, rate and time jumps).
///
/// Every method is required, with no default to fall back on: a method written with a slightly different
/// signature (`error: (any Error)?`) is then a compile error rather than a method that is never called. For one
/// event alone, listen to ``BasePlayer/events()`` instead.
///
/// **Threads**: methods are called on the engine's event thread, or on the thread whose call caused the event (a
/// seek, a pause), after the player's lock is let go; return quickly and do not block.
public protocol AudioPlayerDelegate: AnyObject, Sendable {
    /// Playback reached the end of the last loop (`successfully` true), or stopped early because decoding
    /// or the device failed (false). ``BasePlayer/currentTime`` is back at 0.
    func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool)
    /// Reading the file failed part-way; playback ends where the readable audio ends.
    func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: AudioFileError)
    /// ``BasePlayer/timeControlStatus`` changed to `status`.
    func audioPlayerTimeControlStatusDidChange(_ player: AudioPlayer, to status: AudioPlayer.TimeControlStatus)
    /// ``BasePlayer/rate`` changed to `rate`.
    func audioPlayerRateDidChange(_ player: AudioPlayer, to rate: Float)
    /// The position moved other than by playing on: a seek, or a loop starting over (``BasePlayer/Event/timeJumped``).
    func audioPlayerTimeDidJump(_ player: AudioPlayer)
}

/// Why a player could not get ready or stopped working.
public enum AudioPlayerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file (or data) cannot be read.
    case file(AudioFileError)
    /// The output device cannot be opened or failed.
    case device(AudioDeviceError)

    public var description: String {
        switch self {
        case .file(let error): "\(error)"
        case .device(let error): "\(error)"
        }
    }
}
