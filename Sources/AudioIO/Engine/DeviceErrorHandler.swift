import Atomics
import Dispatch

/// How the stream thread answers a transfer that failed, one way for playback and capture: an xrun is recovered at
/// once; a suspension, or the device taken by another program (told by the transfer, or by an xrun's restart), is
/// handed to the event thread, which waits until the device is back (see ``DeviceInterruptions``); anything else
/// fails the engine for good, and the event thread tells everyone (see ``failure``).
///
/// **Real-time contract**: ``handle(_:)`` runs on the stream thread. It allocates nothing, takes no lock and logs
/// nothing: it calls the stream's own recovery, and while an interruption lasts it waits on a semaphore for the event
/// thread, which does the sleeping, the retrying and the telling.
final class DeviceErrorHandler: @unchecked Sendable {
    /// What the stream thread does after a failed transfer.
    enum Outcome {
        /// An xrun was recovered: the stream goes on, and what the gap held is lost.
        case recovered
        /// The device is back from an interruption: the session paused the clients meanwhile, so nothing is lost.
        case resumed
        /// The device failed: the stream thread ends.
        case failed
    }

    /// The interruptions the stream thread hands to the event thread.
    let interruptions = DeviceInterruptions()
    private let stream: any PCMStream
    private let cycle: StreamEngine.Cycle
    private let eventWake: DispatchSemaphore
    /// Set once, by the stream thread as the device fails: read ``failureError`` after it.
    private let hasFailed = ManagedAtomic<Bool>(false)
    private nonisolated(unsafe) var failureError = DeviceError.disconnected

    /// Handles the failures of `stream`, which `cycle` moves, waking the event thread with `eventWake`.
    init(stream: any PCMStream, cycle: StreamEngine.Cycle, eventWake: DispatchSemaphore) {
        self.stream = stream
        self.cycle = cycle
        self.eventWake = eventWake
    }

    /// What stopped the device for good, if it has stopped.
    var failure: DeviceError? {
        hasFailed.load(ordering: .acquiring) ? failureError : nil
    }

    /// Whether the device has stopped for good.
    var isFailed: Bool { hasFailed.load(ordering: .acquiring) }

    /// Stream thread: recovers from `error`, waits until the event thread brought the device back, or fails.
    func handle(_ error: DeviceError) -> Outcome {
        switch error {
        case .xrun:
            do throws(DeviceError) {
                try stream.recover(from: .xrun)
                return .recovered
            } catch .busy {
                // Another program took the device, which an xrun told first: waited for as below.
                return interrupt(.taken)
            } catch {
                return fail(error)
            }
        case .suspended:
            // Waiting for the system to resume takes sleeping: the event thread does it.
            return interrupt(.suspended)
        case .busy:
            // Another program took the device: the event thread waits until it is free and opens it again.
            return interrupt(.taken)
        default:
            return fail(error)
        }
    }

    /// Stream thread: waits while the event thread brings the device back from `interruption`.
    private func interrupt(_ interruption: StreamInterruption) -> Outcome {
        guard let failure = interruptions.handOver(interruption, waking: eventWake) else { return .resumed }
        return fail(failure)
    }

    /// Stream thread: the device failed; a capture cycle's taps end, and the event thread is told.
    private func fail(_ error: DeviceError) -> Outcome {
        failureError = error
        hasFailed.store(true, ordering: .releasing)
        if case .capture(let capture) = cycle { capture.endAll() }
        eventWake.signal()
        return .failed
    }
}
