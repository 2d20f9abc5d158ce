import Atomics
import Dispatch
import Glibc

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
            while let event = mixer.events.pop() {
                let voice = Unmanaged<Voice>.fromOpaque(event.voice)
                let owner = voice.takeUnretainedValue().owner
                switch event.kind {
                case .started: owner?.voiceDidStart(voice.takeUnretainedValue())
                case .finished:
                    // Finished is when it has been played, not mixed: what the device holds queued is heard first.
                    waitUntilPlayed(upTo: mixer.endOfMix.load(ordering: .relaxed))
                    // A last tick first: an unclocked device may mix a whole file between two ticks.
                    owner?.voiceDidTick(voice.takeUnretainedValue())
                    owner?.voiceDidFinish(voice.takeUnretainedValue())
                case .itemStarted: owner?.voiceDidStartItem(voice.takeUnretainedValue())
                case .removed:
                    _ = clients.withLock { $0.removeValue(forKey: ObjectIdentifier(voice.takeUnretainedValue())) }
                    voice.release()
                }
            }
        case .capture(let capture):
            while let event = capture.events.pop() {
                let tap = Unmanaged<CaptureTap>.fromOpaque(event.tap)
                let owner = tap.takeUnretainedValue().owner
                switch event.kind {
                case .started: owner?.tapDidStart(tap.takeUnretainedValue())
                case .finished: owner?.tapDidFinish(tap.takeUnretainedValue())
                case .overrun: owner?.tapDidOverrun(tap.takeUnretainedValue(), frames: event.frames)
                case .removed:
                    _ = clients.withLock { $0.removeValue(forKey: ObjectIdentifier(tap.takeUnretainedValue())) }
                    tap.release()
                }
            }
        }
    }

    /// Waits, at most the buffer's length and a second, until the device has played what was mixed before `frame`. A
    /// device without a clock has played what it was written once it idles (a `file` PCM writes out when drained),
    /// unless other clients keep it running.
    private func waitUntilPlayed(upTo frame: Int64) {
        guard !isOffline else { return }
        let deadline = DeviceClock.nanoseconds() + configuration.bufferFrames * 1_000_000_000 / configuration.sampleRate + 1_000_000_000
        while DeviceClock.nanoseconds() < deadline, !clock.isIdle, !errors.isFailed {
            if self.frame(at: deviceCurrentTime) >= frame, !isUnclocked || needsRunning { return }
            usleep(2000)
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
