import AudioIO

/// An audio device that cannot be opened or stopped working, with what to do about it.
struct DeviceFailure: Error, CustomStringConvertible {
    let error: any Error

    var description: String {
        "\(error); pick another device with --device (arecord -L lists them)"
    }
}
