import AudioIO

/// A player or recorder that could not start because another program holds its device: the session (with
/// `resumeAfterInterruption`, as the commands set it) starts it once the device is free, so the command waits.
extension AudioPlayer.Status {
    var isWaitingForDevice: Bool {
        guard case .failed(.device(let error)) = self else { return false }
        return error.isHeldByAnotherProgram
    }
}

extension AudioRecorder.Status {
    var isWaitingForDevice: Bool {
        guard case .failed(.device(let error)) = self else { return false }
        return error.isHeldByAnotherProgram
    }
}

extension AudioDeviceError {
    /// Opening it failed because another program holds it.
    var isHeldByAnotherProgram: Bool { operation == .open && reason == .busy }
}
