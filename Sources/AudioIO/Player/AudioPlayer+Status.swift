extension AudioPlayer.Status {
    /// The failure for `error`, thrown while opening the device, or the file at `path` and its pipeline.
    static func failure(_ error: any Error, path: String) -> Self {
        switch error {
        case let error as AudioDeviceError: .failed(.device(error))
        case let error as AudioFileError: .failed(.file(error))
        default: .failed(.file(AudioFileError(path: path, reason: .unsupported("\(error)"))))
        }
    }

    /// Becomes `status`; a change is reported in `events` as `event(status)`. Shared by ``AudioPlayer`` and
    /// ``AudioQueuePlayer``, whose events differ.
    mutating func change<Event>(to status: Self, reporting event: (Self) -> Event, in events: inout [Event]) {
        guard self != status else { return }
        self = status
        events.append(event(status))
    }
}
