import Dispatch
import Synchronization
import SystemPackage

/// The process's one audio session, as `AVAudioSession` is on Apple systems: it says what the process does
/// with audio (``category``), reports the devices in use (``currentRoute``) and available
/// (``availableInputs``, ``availableOutputs``), and applies one policy to every player and recorder.
///
/// ```swift
/// let session = AudioSession.shared
/// session.setCategory(.playback, options: [.resumeAfterInterruption])
/// try session.setActive(true)
/// for await event in session.events() {
///     if case .routeChanged(.oldDeviceUnavailable, let port, _) = event { print("lost", port?.name ?? "") }
/// }
/// ```
///
/// Policy: an interruption (the process stopped with Ctrl-Z, the system suspending the device) pauses the
/// players and recorders that were running and, with ``CategoryOptions/resumeAfterInterruption``,
/// resumes them when it ends. When the device a player plays on goes away, or its card's headphone (or
/// line out) jack is unplugged, the player pauses where it was; audio never moves to another device by
/// itself. When the device a recorder records from goes away, or its card's mic jack is unplugged, the
/// recording stops and its file is finished with everything captured. Paused time is never in a
/// recording. A sound card appearing, or a jack plugged in, starts nothing.
///
/// Events come from a thread watching `/dev/snd` (or `$AUDIOIO_SND_DIR`) for cards, from a thread per
/// card watching its jack controls (through alsa-lib's control device `hw:N`), from the streams (a
/// device failing), and from SIGTSTP / SIGCONT; they reach ``events()`` streams and, on one queue,
/// ``addObserver(_:)`` handlers. Players and recorders activate the session when they start; call
/// ``setActive(_:)`` to watch for devices before that.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioSession: Sendable {
    /// The session of this process.
    public static let shared: AudioSession = {
        let session = AudioSession(directory: nil, handlesSignals: true)
        EngineObservers.add(session)
        return session
    }()

    struct State {
        var category = Category.playAndRecord
        var options: CategoryOptions = []
        var isActive = false
        var preferredInput: String?
        var preferredOutput: String?
        var openOutputs: [String] = []
        var openInputs: [String] = []
        var lostDevices: Set<String> = []
        var monitor: HotplugMonitor?
        var signals: SuspendSignals?
        var participants: [ObjectIdentifier: WeakParticipant] = [:]
        var interrupted: [any AudioSessionParticipant] = []
        var isInterrupted = false
        /// The device another program took, while that is the interruption.
        var interruptedDevice: String?
        var preferredIOBufferDuration = AudioSession.defaultIOBufferDuration
        var subscribers = EventSubscribers<Event>()

        /// The device a stream given none opens: the preferred one when following the default device.
        func deviceForNewStreams(preferring preferred: String?) -> String {
            options.contains(.followDefaultDevice) ? preferred ?? "default" : "default"
        }
    }

    let state = Mutex(State())
    /// The directory watched for cards; `nil` for ``HotplugMonitor/directory``.
    private let directory: String?
    private let handlesSignals: Bool
    /// The handlers of ``addObserver(_:)``.
    let observers = Observers()
    /// Observers are called on one queue, in the order of the events.
    private let notifications = DispatchQueue(label: "AudioSession.notifications")

    /// A session of its own, for tests: watching `directory` and, unless `handlesSignals`, leaving
    /// SIGTSTP and SIGCONT to the shared one (a process stops once).
    init(directory: String?, handlesSignals: Bool) {
        self.directory = directory
        self.handlesSignals = handlesSignals
    }

    /// What the process does with audio: ``Category/playAndRecord`` until ``setCategory(_:options:)`` says otherwise.
    public var category: Category { state.withLock { $0.category } }
    /// How the session applies its policy (``CategoryOptions/resumeAfterInterruption``,
    /// ``CategoryOptions/followDefaultDevice``); none until ``setCategory(_:options:)`` sets them.
    public var categoryOptions: CategoryOptions { state.withLock { $0.options } }
    /// Whether the session is active: it watches for devices and interruptions.
    public var isActive: Bool { state.withLock { $0.isActive } }

    /// Whether the active session watches sound cards come and go (and their jacks): false while inactive, and on
    /// a machine with no card directory (no sound card; see ``setActive(_:)``).
    public var isWatchingSoundCards: Bool { state.withLock { $0.monitor != nil } }

    /// The directory the session watches for sound cards: `/dev/snd`, or `$AUDIOIO_SND_DIR`.
    public var soundCardDirectory: String { directory ?? HotplugMonitor.directory }

    /// Sets the category and options. A change while active is a route change with reason
    /// ``RouteChangeReason/categoryChange``.
    public func setCategory(_ category: Category, options: CategoryOptions = []) {
        withState { state, events in
            // The route only for an event: describing it reads alsa-lib's PCM hints, its whole configuration, which
            // a command setting its category before it starts must not wait for.
            if state.category != category, state.isActive {
                events.append(.routeChanged(.categoryChange, port: nil, previousRoute: route(of: state)))
            }
            state.category = category
            state.options = options
        }
    }

    /// Activates the session (watching for sound cards coming and going, and for Ctrl-Z) or deactivates
    /// it. Players and recorders activate it when they start; activating an active session retries
    /// watching for cards if that failed before.
    ///
    /// A machine without a card directory (`/dev/snd`, or `$AUDIOIO_SND_DIR`) has no sound card, as in a
    /// container where only a sound server is reached: the session activates without hotplug events, and
    /// ``isWatchingSoundCards`` says so.
    ///
    /// - Throws: ``AudioSessionError`` when activating and the card directory exists but cannot be watched; the
    ///   session is active all the same, without hotplug events.
    public func setActive(_ active: Bool) throws(AudioSessionError) {
        let failure: AudioSessionError? = withState { state, _ in
            guard active else {
                state.isActive = false
                state.monitor = nil
                state.signals = nil
                return nil
            }
            state.isActive = true
            if handlesSignals, state.signals == nil {
                state.signals = SuspendSignals(
                    began: { [weak self] in
                        guard let self else { return }
                        beginInterruption(.processSuspended)
                        // The process stops next. A capture thread stopped mid-read would find its device
                        // overrun on waking: it stops the device first, and the observers have their say.
                        StreamEngine.waitUntilPausedCaptureStops(timeout: 0.2)
                        notifications.sync {}
                    },
                    ended: { [weak self] in self?.endInterruption(.processSuspended) })
            }
            guard state.monitor == nil else { return nil }
            // Read now, on the activating thread: the first route reported must not wait for alsa-lib's
            // configuration.
            _ = Self.hints
            let directory = soundCardDirectory
            do {
                state.monitor = try HotplugMonitor(
                    directory: directory, report: { [weak self] port, appeared in self?.cardDidChange(port, appeared: appeared) },
                    jackChanged: { [weak self] change in self?.jackDidChange(change) })
                return nil
            } catch Errno.noSuchFileOrDirectory {
                return nil
            } catch {
                return AudioSessionError(directory: directory, underlying: error as? Errno ?? .ioError)
            }
        }
        if let failure { throw failure }
    }

    /// The devices in use: the streams open in this process, or, for a side with none, the device a
    /// new player or recorder would use. Inputs only in a category that records, outputs only in one
    /// that plays.
    public var currentRoute: RouteDescription { state.withLock { route(of: $0) } }

    /// The capture devices alsa-lib knows: its configured PCMs (e.g. "default", "pulse", "null") and
    /// every card's.
    public var availableInputs: [PortDescription] { Self.ports(inputs: true) }

    /// The playback devices alsa-lib knows: its configured PCMs and every card's.
    public var availableOutputs: [PortDescription] { Self.ports(inputs: false) }

    /// The input used by recorders given no device (with ``CategoryOptions/followDefaultDevice``);
    /// `nil` for ALSA's `default`.
    public var preferredInput: String? { state.withLock { $0.preferredInput } }

    /// The output used by players given no device (with ``CategoryOptions/followDefaultDevice``);
    /// `nil` for ALSA's `default`.
    public var preferredOutput: String? { state.withLock { $0.preferredOutput } }

    /// Sets ``preferredInput``: a route change with reason ``RouteChangeReason/override`` when it changes.
    public func setPreferredInput(_ name: String?) { setPreferred(\.preferredInput, to: name) }

    /// Sets ``preferredOutput``: a route change with reason ``RouteChangeReason/override`` when it changes.
    public func setPreferredOutput(_ name: String?) { setPreferred(\.preferredOutput, to: name) }

    private func setPreferred(_ device: WritableKeyPath<State, String?>, to name: String?) {
        withState { state, events in
            guard state[keyPath: device] != name else { return }
            let previous = route(of: state)
            state[keyPath: device] = name
            events.append(.routeChanged(.override, port: name.map(Self.port(named:)), previousRoute: previous))
        }
    }

    /// The session's events, in the order they happened, from now on until the stream is dropped. Each
    /// call makes a new stream. The same events go to the handlers of ``addObserver(_:)``, in order, on one
    /// serial queue; on Ctrl-Z, the process stops only once those have returned from the interruption's
    /// event (a stream's reader may not have run by then).
    public func events() -> AsyncStream<Event> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1024)) { continuation in
            state.withLock { $0.subscribers.add(continuation) }
        }
    }

    /// The device players given none play on.
    var outputForNewPlayers: String { state.withLock { $0.deviceForNewStreams(preferring: $0.preferredOutput) } }

    /// The device recorders given none record from.
    var inputForNewRecorders: String { state.withLock { $0.deviceForNewStreams(preferring: $0.preferredInput) } }

    // MARK: Internals

    func route(of state: State) -> RouteDescription {
        let outputs = state.openOutputs.isEmpty ? [state.deviceForNewStreams(preferring: state.preferredOutput)] : state.openOutputs
        let inputs = state.openInputs.isEmpty ? [state.deviceForNewStreams(preferring: state.preferredInput)] : state.openInputs
        return RouteDescription(
            inputs: state.category.records ? inputs.map(Self.port(named:)) : [],
            outputs: state.category.plays ? outputs.map(Self.port(named:)) : [])
    }

    /// Runs `body` under the lock, then hands its events to the streams (under the lock, so in order) and
    /// to the observers, on the notification queue.
    func withState<T>(_ body: (inout State, inout [Event]) -> T) -> T {
        state.withLock { state in
            var events: [Event] = []
            let result = body(&state, &events)
            state.subscribers.yield(events)
            for event in events {
                notifications.async { [observers] in observers.deliver(event) }
            }
            return result
        }
    }

    /// A PCM name as a port: a card's names for `hw:N`-style names, alsa-lib's description for others.
    static func port(named name: String) -> PortDescription {
        if let index = cardIndex(pcm: name), let card = SoundCards.card(index: index) {
            return PortDescription(name: name, description: card.name, card: index,
                                   type: PortDescription.guessType(name: name, description: card.longName))
        }
        let hint = hints.first { $0.name == name }
        return PortDescription(name: name, description: hint?.description ?? name, card: cardIndex(pcm: name))
    }

    /// The card a PCM name like "hw:1", "plughw:1,0" or "hw:CARD=1" names by index.
    static func cardIndex(pcm name: String) -> Int? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        var argument = name[name.index(after: colon)...]
        if argument.hasPrefix("CARD=") { argument = argument.dropFirst(5) }
        return Int(argument.prefix { $0.isNumber })
    }

    /// alsa-lib's PCM hints, read once: its configuration does not change while a process runs.
    private static let hints: [SoundCards.PCMHint] = (try? SoundCards.pcmHints()) ?? []

    private static func ports(inputs: Bool) -> [PortDescription] {
        let configured = hints.filter { inputs ? $0.isInput : $0.isOutput }
            .map { PortDescription(name: $0.name, description: $0.description, card: cardIndex(pcm: $0.name)) }
        let cards = SoundCards.cards()
            .filter { card in !configured.contains { $0.card == card.index } }
            .map { PortDescription(name: "hw:\($0.index)", description: $0.name, card: $0.index,
                                   type: PortDescription.guessType(name: "hw:\($0.index)", description: $0.longName)) }
        return configured + cards
    }
}

/// The card directory cannot be watched.
public struct AudioSessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The directory, `/dev/snd` or `$AUDIOIO_SND_DIR`.
    public let directory: String
    /// Why, e.g. `ENOENT` when there is no such directory (a machine without sound cards).
    public let underlying: Errno

    public var description: String { "cannot watch '\(directory)' for sound cards: \(underlying)" }
}
