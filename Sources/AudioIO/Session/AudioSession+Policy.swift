import FoundationEssentials
import SystemEdge

/// A player or recorder, as the session's policy sees it.
protocol AudioSessionParticipant: AnyObject, Sendable {
    /// Pauses if running, for an interruption of `reason`; returns whether it was running.
    func pauseForInterruption(_ reason: AudioSession.InterruptionReason) -> Bool
    /// Resumes after ``pauseForInterruption()`` paused it.
    func resumeAfterInterruption()
    /// The device it plays on or records from (`isInput`), while it has it open; nil while it has none, or plays into
    /// an ``OfflineRenderer``.
    var deviceInUse: (name: String, isInput: Bool)? { get }
    /// The session it joins: ``AudioSession/shared``, or one of a test's own.
    var session: AudioSession { get }
    /// The device it could not open because another program holds it, after a start that failed so (or that waits for
    /// it: see ``waitsForDevice``).
    var deviceFoundBusy: (name: String, isInput: Bool)? { get }
    /// Whether it was asked to start and waits for a device another program holds: the session starts it once the
    /// device is free, whatever its options (a ``Player`` waits so, as for a download).
    var waitsForDevice: Bool { get }
    /// Its device is no longer heard or no longer hears (a jack unplugged) though its stream runs on: a
    /// player pauses, a recorder stops and finishes its file with what was captured.
    func deviceInUseWentAway()
}

extension AudioSessionParticipant {
    var waitsForDevice: Bool { false }

    /// Around a start, outside the participant's lock: the session activates on the first (reading alsa-lib's
    /// configuration) and applies its policy to it from then on. It joins before `start`, so that an interruption of
    /// its device as it starts (another program taking it at once) finds it, and pauses it once `start` is done. One
    /// rendering offline has no device for the session to look after, and leaves again. One whose device another
    /// program holds is interrupted until it is free.
    func joinSession(_ start: @autoclosure () -> Bool) -> Bool {
        session.participantWillStart(self)
        let started = start()
        session.participant(self, didStart: started && deviceInUse != nil)
        if !started || waitsForDevice, let busy = deviceFoundBusy { session.participant(self, foundBusy: busy) }
        return started
    }

    /// The device named in `status`, when it says another program holds it.
    static func busyDevice(_ error: AudioDeviceError, isInput: Bool) -> (name: String, isInput: Bool)? {
        error.operation == .open && error.reason == .busy ? (error.device, isInput) : nil
    }
}

/// A participant, held weakly: the session does not keep players alive.
struct WeakParticipant {
    weak var value: (any AudioSessionParticipant)?
}

extension AudioSession {
    /// A player or recorder starts: the session will apply its policy to it.
    func participantWillStart(_ participant: any AudioSessionParticipant) {
        state.withLock { state in
            state.participants = state.participants.filter { $0.value.value != nil }
            state.participants[ObjectIdentifier(participant)] = WeakParticipant(value: participant)
        }
    }

    /// A player or recorder started on a device: the session activates (without minding a card directory it cannot
    /// watch); or it did not, and the session leaves it be.
    func participant(_ participant: any AudioSessionParticipant, didStart started: Bool) {
        let isActive = state.withLock { state in
            if !started { state.participants[ObjectIdentifier(participant)] = nil }
            return state.isActive
        }
        if started, !isActive { try? setActive(true) }
    }

    /// Pauses every running participant, remembers them and posts the interruption; ignored while an
    /// interruption is under way. One of `device` alone (another program took it) concerns those that use it: it
    /// pauses them, and a session with none there ignores it. An ``Category/ambient`` session follows no
    /// interruption of a device: its players play on, as soon as the device lets them (a stopped process pauses
    /// them all the same).
    func beginInterruption(_ reason: InterruptionReason, device: String? = nil) {
        let found = state.withLock { state in
            state.isInterrupted ? nil : (state.participants.values.compactMap(\.value), state.category)
        }
        guard let (running, category) = found else { return }
        var participants = running
        // Outside the lock: a participant takes its own lock, and may call back into the session.
        if let device {
            participants.removeAll { $0.deviceInUse?.name != device }
            guard !participants.isEmpty else { return }
        }
        let begins = state.withLock { state in
            defer { state.isInterrupted = true }
            if !state.isInterrupted { state.interruptedDevice = device }
            return !state.isInterrupted
        }
        guard begins else { return }
        if category == .ambient, reason != .processSuspended { participants = [] }
        let paused = participants.filter { $0.pauseForInterruption(reason) }
        withState { state, events in
            state.interrupted = paused
            events.append(.interruptionBegan(reason))
        }
    }

    /// A participant could not start: another program holds `device`. The interruption of that device begins with
    /// it, as if it had been paused, and ends once the device can be opened again, which a thread of its own tries
    /// every ``DeviceInterruptions/retryInterval`` (as the engine does for a device taken while it runs).
    func participant(_ participant: any AudioSessionParticipant, foundBusy device: (name: String, isInput: Bool)) {
        enum Joined { case began, joined, apart }
        let joined = withState { state, events -> Joined in
            guard !state.isInterrupted else {
                guard state.interruptedDevice == device.name else { return .apart }
                if !state.interrupted.contains(where: { $0 === participant }) { state.interrupted.append(participant) }
                return .joined
            }
            state.isInterrupted = true
            state.interruptedDevice = device.name
            state.interrupted = [participant]
            events.append(.interruptionBegan(.deviceInUse))
            return .began
        }
        let direction: StreamDirection = device.isInput ? .capture : .playback
        if joined == .apart {
            // Another interruption is under way: one that waits for its device (a Player) is looked after on its own,
            // started once the device can be opened, unless it no longer waits.
            guard participant.waitsForDevice else { return }
            SystemThread.detach(name: "audio-busy", realtime: false) { [weak participant] in
                while let participant, participant.waitsForDevice {
                    if StreamFactory.canOpen(device.name, direction: direction) { return participant.resumeAfterInterruption() }
                    MonotonicClock.sleep(seconds: DeviceInterruptions.retryInterval)
                }
            }
            return
        }
        guard joined == .began else { return }
        SystemThread.detach(name: "audio-busy", realtime: false) { [weak self] in
            while let self, state.withLock({ $0.interruptedDevice == device.name }) {
                if StreamFactory.canOpen(device.name, direction: direction) {
                    endInterruption(.deviceInUse, device: device.name)
                    return
                }
                MonotonicClock.sleep(seconds: DeviceInterruptions.retryInterval)
            }
        }
    }

    /// Posts the end of the interruption (of `device`, when it was of one device) and, with
    /// ``CategoryOptions/resumeAfterInterruption``, resumes what it paused; what waits for the device starts anyway.
    func endInterruption(_ reason: InterruptionReason, device: String? = nil) {
        let ended: (paused: [any AudioSessionParticipant], resumesAll: Bool)? = withState { state, events in
            guard state.isInterrupted, state.interruptedDevice == device else { return nil }
            state.isInterrupted = false
            state.interruptedDevice = nil
            let paused = state.interrupted
            state.interrupted = []
            events.append(.interruptionEnded(reason, shouldResume: true))
            return (paused, state.options.contains(.resumeAfterInterruption))
        }
        guard let ended else { return }
        // One that waits for the device (rather than was paused by the interruption) starts in any case.
        for participant in ended.paused where ended.resumesAll || participant.waitsForDevice {
            participant.resumeAfterInterruption()
        }
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

/// The session hears the engines: what opens, fails, is suspended or is taken by another program changes the route and
/// interrupts.
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

    func engineInterrupted(_ device: String, by interruption: StreamInterruption) {
        beginInterruption(Self.reason(of: interruption), device: interruption == .taken ? device : nil)
    }

    func engineResumed(_ device: String, from interruption: StreamInterruption) {
        endInterruption(Self.reason(of: interruption), device: interruption == .taken ? device : nil)
    }

    private static func reason(of interruption: StreamInterruption) -> InterruptionReason {
        switch interruption {
        case .suspended: .systemSuspended
        case .taken: .deviceInUse
        }
    }
}
