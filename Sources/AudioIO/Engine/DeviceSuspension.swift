import Atomics
import Dispatch
import Glibc

/// A device the system suspended (`-ESTRPIPE`), handed from the audio thread to the engine's event
/// thread: the audio thread must not sleep in `snd_pcm_resume`'s retries, log or take locks, so it
/// flags the suspension and waits; the event thread posts the interruption (the session pauses players
/// and recorders), brings the device back, posts the end of the interruption and lets the audio thread
/// go on.
final class DeviceSuspension: Sendable {
    private let isSuspended = ManagedAtomic<Bool>(false)
    /// The errno of a failed resume, 0 when the device came back.
    private let resumeFailure = ManagedAtomic<Int32>(0)
    private let resumed = DispatchSemaphore(value: 0)

    /// Audio thread: flags the suspension, wakes the event thread and waits for it to resume the device;
    /// returns the error when it could not.
    func handOver(waking eventThread: DispatchSemaphore) -> ALSAError? {
        isSuspended.store(true, ordering: .releasing)
        eventThread.signal()
        resumed.wait()
        let code = resumeFailure.load(ordering: .acquiring)
        return code == 0 ? nil : ALSAError(code: code, function: "snd_pcm_recover")
    }

    /// Event thread: if the audio thread handed over a suspension, runs the interruption and resumes
    /// `device` (the audio thread waits meanwhile, so the device has one user at a time).
    func resumeIfSuspended(_ device: PCMDevice) {
        guard isSuspended.exchange(false, ordering: .acquiring) else { return }
        AudioSession.shared.beginInterruption(.systemSuspended)
        do throws(ALSAError) {
            try device.recover(from: ALSAError(code: ESTRPIPE, function: "snd_pcm_writei"))
            resumeFailure.store(0, ordering: .releasing)
        } catch {
            resumeFailure.store(error.code, ordering: .releasing)
        }
        AudioSession.shared.endInterruption(.systemSuspended)
        resumed.signal()
    }
}
