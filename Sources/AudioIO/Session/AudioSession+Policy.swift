import FoundationEssentials

/// A player or recorder, as the session's policy sees it.
protocol AudioSessionParticipant: AnyObject, Sendable {
    /// Pauses if running; returns whether it was running.
    func pauseForInterruption() -> Bool
    /// Resumes after ``pauseForInterruption()`` paused it.
    func resumeAfterInterruption()
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
        // A capture thread stopped mid-read would find its device overrun on waking: let it stop the device.
        InputEngine.waitUntilPausedEnginesStop(timeout: 0.2)
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

    /// A stream was opened on `device`: it is in the route; a device lost before is back.
    func streamOpened(_ device: String, output: Bool) {
        withState { state, events in
            if output { state.openOutputs.append(device) } else { state.openInputs.append(device) }
            if state.lostDevices.remove(device) != nil { events.append(.mediaServicesWereReset(device: device)) }
        }
    }

    /// The stream on `device` failed for good: the device vanished (a route change, the old device
    /// unavailable) or failed otherwise (media services lost). Its players and recorders react to the
    /// failure themselves; this tells everyone else.
    func streamFailed(_ device: String, output: Bool, error: ALSAError) {
        withState { state, events in
            let previous = route(of: state)
            if output {
                state.openOutputs.removeAll { $0 == device }
            } else {
                state.openInputs.removeAll { $0 == device }
            }
            state.lostDevices.insert(device)
            if error.isDeviceGone {
                events.append(.routeChanged(.oldDeviceUnavailable, port: Self.port(named: device), previousRoute: previous))
            } else {
                events.append(.mediaServicesWereLost(device: device))
            }
        }
    }

    /// The hotplug monitor saw a card appear or vanish.
    func cardDidChange(_ port: PortDescription, appeared: Bool) {
        withState { state, events in
            events.append(.routeChanged(appeared ? .newDeviceAvailable : .oldDeviceUnavailable, port: port,
                                        previousRoute: route(of: state)))
        }
    }
}
