extension AudioSettings {
    /// What a recording asks of its capture device: its own rate, channel count and sample format, so that
    /// a device that takes them delivers samples that reach the file unchanged (as `arecord -f S16_LE -c 1
    /// -r 48000` records); then the formats that carry them without loss, then any; in the session's buffer.
    var captureRequest: StreamRequest {
        let formats: [SampleFormat] = switch (format, effectiveBitDepth) {
        // Opus and AAC encode from float.
        case (.opus, _), (.aac, _): [.float32, .int32, .int24, .int16]
        case (_, .int16): [.int16, .int32, .int24, .float32]
        case (_, .int24): [.int24, .int32, .float32, .int16]
        case (_, .float32): [.float32, .int32, .int24, .int16]
        }
        return AudioSession.shared.captureRequest(sampleRate: Int(sampleRate), channelCount: channelCount, formats: formats)
    }

    /// The capture engine of `device` (nil: the session's input for new recorders) opened for a recording with these
    /// settings, and a tap on it that maps its channels to the recording's, with a ring of `ringSeconds`; the tap is
    /// not in the cycle yet and has no owner.
    ///
    /// - Throws: ``AudioDeviceError`` when the device cannot be opened, or its channels cannot be mapped to these.
    func openCapture(device: String?, ringSeconds: Double = AudioRecorder.ringSeconds) throws(AudioDeviceError) -> (StreamEngine, CaptureTap) {
        let name = device ?? AudioSession.shared.inputForNewRecorders
        let engine = try StreamEngine.engine(for: name, direction: .capture, request: captureRequest)
        guard let channelMap = ChannelMap(from: engine.configuration.channelCount, to: channelCount) else {
            throw AudioDeviceError(device: name, operation: .open, reason: .unsupportedConfiguration)
        }
        let tap = CaptureTap(
            channelCount: channelCount, channelMap: channelMap, periodFrames: engine.configuration.periodFrames,
            capacityFrames: Int(engine.sampleRate * ringSeconds))
        return (engine, tap)
    }
}
