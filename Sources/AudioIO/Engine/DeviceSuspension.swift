import Atomics
import Dispatch

/// A device the system suspended, handed from the stream thread to the engine's event thread: the stream thread
/// must not sleep in a resume's retries, log or take locks, so it flags the suspension and waits; the event thread
/// tells the ``EngineObservers`` (the session pauses players and recorders), brings the stream back, tells them it is
/// back, and lets the stream thread go on.
final class DeviceSuspension: @unchecked Sendable {
    private let isSuspended = ManagedAtomic<Bool>(false)
    /// Written by the event thread before it signals ``resumed``; read by the stream thread after.
    private nonisolated(unsafe) var resumeFailure: DeviceError?
    private let resumed = DispatchSemaphore(value: 0)

    /// Stream thread: flags the suspension, wakes the event thread and waits for it to resume the stream; returns
    /// the error when it could not.
    func handOver(waking eventThread: DispatchSemaphore) -> DeviceError? {
        isSuspended.store(true, ordering: .releasing)
        eventThread.signal()
        resumed.wait()
        return resumeFailure
    }

    /// Event thread: if the stream thread handed over a suspension, tells the observers and resumes `stream` (the
    /// stream thread waits meanwhile, so the stream has one user at a time).
    func resumeIfSuspended(_ stream: any PCMStream) {
        guard isSuspended.exchange(false, ordering: .acquiring) else { return }
        EngineObservers.tell { $0.engineSuspended(stream.name) }
        do throws(DeviceError) {
            try stream.recover(from: .suspended)
            resumeFailure = nil
        } catch {
            resumeFailure = error
        }
        EngineObservers.tell { $0.engineResumed(stream.name) }
        resumed.signal()
    }
}
