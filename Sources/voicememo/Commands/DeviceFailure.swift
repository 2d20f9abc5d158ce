import AudioIO

/// An audio device that cannot be opened or stopped working, with what to do about it.
struct DeviceFailure: Error, CustomStringConvertible {
    let error: AudioDeviceError

    var description: String {
        let advice = switch error.reason {
        case .notFound: "pick another with --device ('voicememo devices' lists them)"
        case .busy: "close the program that uses it, or pick another with --device"
        case .permissionDenied: "join the 'audio' group, or pick another device with --device (e.g. pulse)"
        case _ where error.device == "default" && error.operation == .open:
            "this machine may have no sound card: pick a device with --device (e.g. pulse; 'voicememo devices' lists them)"
        default: "pick another device with --device ('voicememo devices' lists them)"
        }
        return "\(error); \(advice)"
    }
}
