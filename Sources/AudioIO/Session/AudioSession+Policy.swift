import FoundationEssentials

/// A player or recorder, as the session's policy sees it.
protocol AudioSessionParticipant: AnyObject, Sendable {
    /// Pauses if running; returns whether it was running.
    func pauseForInterruption() -> Bool
    /// Resumes after ``pauseForInterruption()`` paused it.
    func resumeAfterInterruption()
    /// The device it plays on or records from (`isInput`), while it has it open; nil while it has none, or plays into
    /// an ``OfflineRenderer``.
    var deviceInUse: (name: String, isInput: Bool)? { get }
    /// Its device is no longer heard or no longer hears (a jack unplugged) though its stream runs on: a
    /// player pauses, a recorder stops and finishes its file with what was captured.
    func deviceInUseWentAway()
}

extension AudioSessionParticipant {
    /// After a start, outside the participant's lock: the session activates on the first (reading
    /// alsa-lib's configuration) and applies its policy to it from then on. One rendering offline has no device for
    /// the session to look after.
    func joinSession(_ started: Bool) -> Bool {
        if started, deviceInUse != nil { AudioSession.shared.participantStarted(self) }
        return started
    }
}

/// A player as the session sees it: paused and resumed by interruptions, and paused where it was when its
/// output is unplugged; ``play()`` resumes it on the same device.
protocol PlayingParticipant: AudioSessionParticipant {
    @discardableResult func play() -> Bool
    /// Pauses if playing; returns whether it was.
    func pauseIfPlaying() -> Bool
    /// The device its engine has open.
    var outputInUse: String? { get }
}

extension PlayingParticipant {
    func pauseForInterruption() -> Bool { pauseIfPlaying() }

    func resumeAfterInterruption() { play() }

    var deviceInUse: (name: String, isInput: Bool)? { outputInUse.map { ($0, false) } }

    func deviceInUseWentAway() { _ = pauseIfPlaying() }
}

/// A participant, held weakly: the session does not keep players alive.
struct WeakParticipant {
    weak var value: (any AudioSessionParticipant)?
}

extension AudioSession {
    /// A player or recorder started: the session activates (without minding a card directory it cannot
    /// watch) and will apply its policy to it.
    func participantStarted(_ participant: any AudioSessionParticipant) {
        let isActive = state.withLock { state in
            state.participants = state.participants.filter { $0.value.value != nil }
            state.participants[ObjectIdentifier(participant)] = WeakParticipant(value: participant)
            return state.isActive
        }
        if !isActive { try? setActive(true) }
    }

    /// Pauses every running participant, remembers them and posts the interruption; ignored while an
    /// interruption is under way.
    func beginInterruption(_ reason: InterruptionReason) {
        let participants: [any AudioSessionParticipant]? = state.withLock { state in
            guard !state.isInterrupted else { return nil }
            state.isInterrupted = true
            return state.participants.values.compactMap(\.value)
        }
        guard let participants else { return }
        // Outside the lock: a participant takes its own lock, and may call back into the session.
        let paused = participants.filter { $0.pauseForInterruption() }
        withState { state, events in
            state.interrupted = paused
            events.append(.interruptionBegan(reason))
        }
    }

    /// Posts the end of the interruption and, with ``CategoryOptions/resumeAfterInterruption``, resumes
    /// what it paused.
    func endInterruption(_ reason: InterruptionReason) {
        let resumed: [any AudioSessionParticipant]? = withState { state, events in
            guard state.isInterrupted else { return nil }
            state.isInterrupted = false
            let paused = state.interrupted
            state.interrupted = []
            events.append(.interruptionEnded(reason, shouldResume: true))
            return state.options.contains(.resumeAfterInterruption) ? paused : []
        }
        for participant in resumed ?? [] { participant.resumeAfterInterruption() }
    }

    /// The hotplug monitor saw a card appear or vanish.
    func cardDidChange(_ port: PortDescription, appeared: Bool) {
        withState { state, events in
            events.append(.routeChanged(appeared ? .newDeviceAvailable : .oldDeviceUnavailable, port: port,
                                        previousRoute: route(of: state)))
        }
    }

    /// A jack of a card was plugged or unplugged: a route change of the card's port (the device in use on
    /// it, when there is one). Unplugging the jack of an output in use pauses its players; of an input
    /// in use, stops its recorders; plugging one starts nothing.
    ///
    /// A jack belongs to the devices in use on its card: those whose PCM name names the card, as
    /// "hw:N", "plughw:N,0" or "front:CARD=N" do (``cardIndex(pcm:)``), on the jack's side (a "Mic Jack"
    /// is an input's). A PCM that names no card ("default", a sound server's) is left to whatever it
    /// reaches, which follows jacks itself.
    func jackDidChange(_ change: JackMonitor.Change) {
        let (devices, participants) = state.withLock { state in
            let open = change.isInput ? state.openInputs : state.openOutputs
            return (open.filter { Self.cardIndex(pcm: $0) == change.card }, change.isPlugged ? [] : state.participants.values.compactMap(\.value))
        }
        // Outside the lock (a participant takes its own, and calls into the session holding it), and first:
        // whoever sees the event sees them paused. Pausing changes no route: the previous one is described
        // after it.
        for participant in participants {
            guard let device = participant.deviceInUse, device.isInput == change.isInput, devices.contains(device.name) else { continue }
            participant.deviceInUseWentAway()
        }
        let previous = currentRoute
        let port = PortDescription(name: devices.first ?? "hw:\(change.card)", description: "\(change.cardName): \(change.jack)",
                                   card: change.card, type: change.portType)
        withState { _, events in
            events.append(.routeChanged(change.isPlugged ? .newDeviceAvailable : .oldDeviceUnavailable, port: port, previousRoute: previous))
        }
    }
}

/// The session hears the engines: what opens, fails and is suspended changes the route and interrupts.
extension AudioSession: EngineObserver {
    /// A stream was opened on `device`: it is in the route; a device lost before is back.
    func engineOpened(_ device: String, direction: StreamDirection) {
        withState { state, events in
            if direction == .playback { state.openOutputs.append(device) } else { state.openInputs.append(device) }
            if state.lostDevices.remove(device) != nil { events.append(.mediaServicesWereReset(device: device)) }
        }
    }

    /// The stream on `device` failed for good: the device vanished (a route change, the old device unavailable) or
    /// failed otherwise (media services lost). Its players and recorders react to the failure themselves; this
    /// tells everyone else.
    func engineFailed(_ device: String, direction: StreamDirection, error: AudioDeviceError) {
        withState { state, events in
            let previous = route(of: state)
            if direction == .playback {
                state.openOutputs.removeAll { $0 == device }
            } else {
                state.openInputs.removeAll { $0 == device }
            }
            state.lostDevices.insert(device)
            if error.reason == .disconnected {
                events.append(.routeChanged(.oldDeviceUnavailable, port: Self.port(named: device), previousRoute: previous))
            } else {
                events.append(.mediaServicesWereLost(device: device))
            }
        }
    }

    func engineSuspended(_ device: String) { beginInterruption(.systemSuspended) }

    func engineResumed(_ device: String) { endInterruption(.systemSuspended) }
}
