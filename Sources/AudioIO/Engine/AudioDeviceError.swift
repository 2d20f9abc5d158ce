/// A failure of an audio device: it cannot be opened or configured, or it failed while running.
public struct AudioDeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done.
    public enum Operation: Sendable, Equatable {
        /// Opening or configuring the device.
        case open
        /// Playing or recording; the device stopped working.
        case stream
    }

    /// What happened to the device.
    public enum Reason: Sendable, Equatable {
        /// There is no device of that name.
        case notFound
        /// Another program holds the device.
        case busy
        /// The device went away: unplugged, its driver unloaded, its sound server gone.
        case disconnected
        /// The system suspended the device and it could not be resumed.
        case suspended
        /// This process may not use the device.
        case permissionDenied
        /// The device takes none of the sample formats, rates or channel counts asked of it.
        case unsupportedConfiguration
        /// Anything else, in the words of the library that drives the device.
        case other(String)
    }

    /// The device's name, e.g. "default", "hw:1", "pulse".
    public let device: String
    /// What was being done.
    public let operation: Operation
    /// What happened.
    public let reason: Reason

    /// Creates an error for `device`.
    public init(device: String, operation: Operation, reason: Reason) {
        self.device = device
        self.operation = operation
        self.reason = reason
    }

    /// The error for `device` that ran into `error` while doing `operation`.
    init(device: String, operation: Operation, _ error: DeviceError) {
        let reason: Reason = switch error {
        case .notFound: .notFound
        case .busy: .busy
        case .disconnected: .disconnected
        case .suspended: .suspended
        case .permissionDenied: .permissionDenied
        case .unsupportedConfiguration: .unsupportedConfiguration
        case .xrun: .other("the stream kept running dry")
        case .failed(let text): .other(text)
        }
        self.init(device: device, operation: operation, reason: reason)
    }

    public var description: String {
        let what = switch reason {
        case .notFound: "there is no such device"
        case .busy: "another program is using it"
        case .disconnected: "it went away"
        case .suspended: "the system suspended it and it did not come back"
        case .permissionDenied: "permission denied"
        case .unsupportedConfiguration: "it takes none of the formats, rates and channel counts asked of it"
        case .other(let text): text
        }
        return switch operation {
        case .open: "cannot open audio device '\(device)': \(what)"
        case .stream: "audio device '\(device)' failed: \(what)"
        }
    }
}
