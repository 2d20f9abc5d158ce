import Foundation

extension AudioRecorder {
    /// Everything mutable about a recorder, guarded by its mutex.
    struct State {
        var deviceName: String?
        var delegate = WeakRecorderDelegate()
        var status = Status.unknown
        var isRecording = false
        var isMeteringEnabled = false
        var levels = AudioLevels(peak: [], average: [])
        var engine: InputEngine?
        var tap: CaptureTap?
        var writer: RecordingWriter?
        var isInCycle = false
        var summary: AudioFileSummary?
        var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextSubscriberID = 0
    }

    /// The recorder's events, in order, from now on, until the stream is dropped. Each call makes a new
    /// stream; several may be listened to at once.
    public func events() -> AsyncStream<Event> {
        AsyncStream { continuation in
            let id = state.withLock { state in
                state.nextSubscriberID += 1
                state.subscribers[state.nextSubscriberID] = continuation
                return state.nextSubscriberID
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        }
    }

    /// Runs `body` under the lock, then delivers the events it produced to subscribers and the delegate.
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        var events: [Event] = []
        let (result, delegate, subscribers) = state.withLock { state in
            (body(&state, &events), state.delegate.value, Array(state.subscribers.values))
        }
        for event in events {
            for subscriber in subscribers { subscriber.yield(event) }
            switch event {
            case .finishedRecording(let successfully): delegate?.audioRecorderDidFinishRecording(self, successfully: successfully)
            case .encodeError(let error): delegate?.audioRecorderEncodeErrorDidOccur(self, error: error)
            case .statusChanged, .started, .overrun: break
            }
        }
        return result
    }
}
