/// The one place that chooses a device's backend, by the device's name and direction: the ``NullDevice`` a test
/// installed under that name, else the ALSA PCM of that name. The engine asks here for its stream and never names a
/// backend.
enum StreamFactory {
    /// Opens `device` for `direction`, unconfigured.
    static func open(_ device: String, direction: StreamDirection) throws(DeviceError) -> any PCMStream {
        if let null = NullDevice.named(device) { return NullStream(device: null, direction: direction) }
        return try ALSAStream(name: device, direction: direction)
    }

    /// Whether `device` can be opened for `direction` now: false while another program holds it (the open fails
    /// with ``DeviceError/busy``). Any other failure is for the open that follows to report.
    static func canOpen(_ device: String, direction: StreamDirection) -> Bool {
        if let null = NullDevice.named(device) { return !null.isHeld }
        do throws(DeviceError) {
            try ALSAStream(name: device, direction: direction).close()
            return true
        } catch {
            return error != .busy
        }
    }
}
