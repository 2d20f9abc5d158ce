/// Receives an ``AudioRecorder``'s events, as `AVAudioRecorderDelegate` does.
///
/// Both methods are required, with no default to fall back on: a method written with a slightly different
/// signature is then a compile error rather than a method that is never called. For one event alone, listen to
/// ``AudioRecorder/events()`` instead.
///
/// **Threads**: methods are called on the input engine's event thread or the recorder's writer thread;
/// return quickly and do not block.
public protocol AudioRecorderDelegate: AnyObject, Sendable {
    /// The recording ended and its file is finished: stopped, or its duration reached (`successfully`
    /// true), or cut short because writing or the device failed (false). The file keeps what was
    /// recorded up to then.
    func audioRecorderDidFinishRecording(_ recorder: AudioRecorder, successfully: Bool)
    /// Writing the file failed (disk full, I/O error); the recording stops.
    func audioRecorderEncodeErrorDidOccur(_ recorder: AudioRecorder, error: AudioFileError)
}

/// Why a recorder could not get ready or stopped working.
public enum AudioRecorderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file cannot be created or written.
    case file(AudioFileError)
    /// The input device cannot be opened, cannot give what the settings ask, or failed.
    case device(AudioDeviceError)
    /// The session's category does not record (``AudioSession/Category/playback``, ``AudioSession/Category/ambient``):
    /// set ``AudioSession/Category/record`` or ``AudioSession/Category/playAndRecord`` first.
    case categoryDoesNotRecord(AudioSession.Category)

    public var description: String {
        switch self {
        case .file(let error): "\(error)"
        case .device(let error): "\(error)"
        case .categoryDoesNotRecord(let category):
            "cannot record: the audio session's category is '\(category.rawValue)', which does not allow recording; set 'record' or 'playAndRecord'"
        }
    }
}
