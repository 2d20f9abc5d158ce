import Atomics
import Dispatch
import SystemEdge

/// The event thread, an ordinary one: it delivers the stream thread's events to the owners of the voices and taps,
/// ticks time observers, brings back a device the stream thread handed over as interrupted (see
/// ``DeviceInterruptions``), and after a failure closes the engine and tells everyone. It may block and run owners'
/// code; it sleeps until the stream thread, a client or the close wakes it, and ticks on its own only while a time
/// observer needs it.
extension StreamEngine {
    func runEventThread() {
        while true {
            let wantsTicks = clients.withLock { clients in
                clients.values.contains { ($0 as? Voice)?.wantsTicks.load(ordering: .relaxed) ?? false }
            }
            // Woken by the stream thread's events, a failure, a suspension, a client or the close; by the clock only
            // for time observers.
            if wantsTicks {
                _ = eventWake.wait(timeout: .now() + 0.005)
            } else {
                eventWake.wait()
            }
            deliverEvents()
            errors.interruptions.resumeIfInterrupted(stream) { isClosing.load(ordering: .acquiring) }
            if errors.isFailed {
                failEverything()
                return
            }
            if isClosing.load(ordering: .acquiring) { return }
            let voices = clients.withLock { $0.values.compactMap { $0 as? Voice } }
            for voice in voices { voice.owner?.voiceDidTick(voice) }
        }
    }

    /// The stream thread's events, to the owners of their voices or taps.
    private func deliverEvents() {
        switch cycle {
        case .render(let mixer):
            while let event = mixer.events.pop() { deliver(event.kind, of: .fromOpaque(event.voice), mixedBy: mixer) }
        case .capture(let capture):
            while let event = capture.events.pop() { deliver(event, of: .fromOpaque(event.tap)) }
        }
    }

    /// A voice's event, to its owner; a voice taken out of the mix is let go.
    private func deliver(_ kind: EngineEvent.Kind, of client: Unmanaged<Voice>, mixedBy mixer: Mixer) {
        let voice = client.takeUnretainedValue()
        switch kind {
        case .started: voice.owner?.voiceDidStart(voice)
        case .finished:
            let owner = voice.owner
            // Finished is when it has been played, not mixed: what the device holds queued is heard first.
            waitUntilPlayed(upTo: mixer.endOfMix.load(ordering: .relaxed))
            // A last tick first: an unclocked device may mix a whole file between two ticks.
            owner?.voiceDidTick(voice)
            owner?.voiceDidFinish(voice)
        case .itemStarted: voice.owner?.voiceDidStartItem(voice)
        case .removed: letGo(client)
        }
    }

    /// A tap's event, to its owner; a tap let go of by the cycle is let go here too.
    private func deliver(_ event: CaptureEvent, of client: Unmanaged<CaptureTap>) {
        let tap = client.takeUnretainedValue()
        switch event.kind {
        case .started: tap.owner?.tapDidStart(tap)
        case .finished: tap.owner?.tapDidFinish(tap)
        case .overrun: tap.owner?.tapDidOverrun(tap, frames: event.frames)
        case .removed: letGo(client)
        }
    }

    /// Lets go of the client the cycle removed: its owner's reference, and the cycle's (taken when it entered).
    private func letGo<Client: AnyObject>(_ client: Unmanaged<Client>) {
        let key = ObjectIdentifier(client.takeUnretainedValue())
        _ = clients.withLock { $0.removeValue(forKey: key) }
        client.release()
    }

    /// Waits, at most the buffer's length and a second, until the device has played what was mixed before `frame`. A
    /// device without a clock has played what it was written once it idles (a `file` PCM writes out when drained),
    /// unless other clients keep it running.
    private func waitUntilPlayed(upTo frame: Int64) {
        guard !isOffline else { return }
        let deadline = MonotonicClock.nanoseconds() + configuration.bufferFrames * 1_000_000_000 / configuration.sampleRate + 1_000_000_000
        while MonotonicClock.nanoseconds() < deadline, !clock.isIdle, !errors.isFailed {
            if self.frame(at: deviceCurrentTime) >= frame, !isUnclocked || needsRunning { return }
            MonotonicClock.sleep(nanoseconds: 2_000_000)
        }
    }

    /// The device failed: the engine leaves the registry, its observers hear it, and every client's owner too.
    private func failEverything() {
        close()
        guard let failure else { return }
        EngineObservers.tell { $0.engineFailed(deviceName, direction: direction, error: failure) }
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all {
            if let voice = client as? Voice { voice.owner?.voiceDidLoseDevice(voice, error: failure) }
            if let tap = client as? CaptureTap { tap.owner?.tapDidLoseDevice(tap, error: failure) }
        }
    }
}
