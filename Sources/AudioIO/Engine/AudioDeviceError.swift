/// A failure of an audio device: it cannot be opened or configured, or it failed while running.
public struct AudioDeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done.
    public enum Operation: Sendable, Equatable {
        /// Opening or configuring the device.
        case open
        /// Playing or recording; the device stopped working.
        case stream
    }

    /// The ALSA PCM name, e.g. "default", "hw:1", "pulse".
    public let device: String
    /// What was being done.
    public let operation: Operation
    /// alsa-lib's report.
    public let underlying: ALSAError

    public var description: String {
        switch operation {
        case .open: "cannot open audio device '\(device)': \(underlying)"
        case .stream: "audio device '\(device)' failed: \(underlying)"
        }
    }
}
