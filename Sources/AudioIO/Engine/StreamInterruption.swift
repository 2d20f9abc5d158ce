import Atomics
import Dispatch
import SystemEdge

/// Why a stream stopped for a while and waits to be brought back.
enum StreamInterruption: Sendable {
    /// The system suspended the device (`-ESTRPIPE`): it is resumed once.
    case suspended
    /// Another program took the device (`-EBUSY`): it is opened again every ``DeviceInterruptions/retryInterval``
    /// until it is free.
    case taken
}

/// A stream interrupted, handed from the stream thread to the engine's event thread: the stream thread must not sleep
/// in retries, log or take locks, so it flags the interruption and waits; the event thread tells the
/// ``EngineObservers`` (the session pauses players and recorders), brings the stream back, tells them it is back, and
/// lets the stream thread go on.
final class DeviceInterruptions: @unchecked Sendable {
    /// Seconds between attempts to take back a device another program holds: soon enough to resume within a
    /// fraction of a second, rare enough to cost nothing.
    static let retryInterval = 0.3

    /// 0 while none is handed over, else 1 + the interruption's index.
    private let handedOver = ManagedAtomic<Int>(0)
    /// Written by the event thread before it signals ``resumed``; read by the stream thread after.
    private nonisolated(unsafe) var resumeFailure: DeviceError?
    private let resumed = DispatchSemaphore(value: 0)

    /// Stream thread: flags `interruption`, wakes the event thread and waits for it to bring the stream back; returns
    /// the error when it could not.
    func handOver(_ interruption: StreamInterruption, waking eventThread: DispatchSemaphore) -> DeviceError? {
        handedOver.store(interruption == .suspended ? 1 : 2, ordering: .releasing)
        eventThread.signal()
        resumed.wait()
        return resumeFailure
    }

    /// Event thread: if the stream thread handed over an interruption, tells the observers and brings `stream` back
    /// (the stream thread waits meanwhile, so the stream has one user at a time) — a device taken by another program
    /// as soon as it is free again, unless `isClosing` first.
    func resumeIfInterrupted(_ stream: any PCMStream, isClosing: () -> Bool) {
        let flag = handedOver.exchange(0, ordering: .acquiring)
        guard flag != 0 else { return }
        let interruption: StreamInterruption = flag == 1 ? .suspended : .taken
        EngineObservers.tell { $0.engineInterrupted(stream.name, by: interruption) }
        resumeFailure = nil
        while true {
            do throws(DeviceError) {
                try stream.recover(from: interruption == .suspended ? .suspended : .busy)
            } catch .busy where interruption == .taken && !isClosing() {
                MonotonicClock.sleep(seconds: Self.retryInterval)
                continue
            } catch {
                resumeFailure = error
            }
            break
        }
        EngineObservers.tell { $0.engineResumed(stream.name, from: interruption) }
        resumed.signal()
    }
}
