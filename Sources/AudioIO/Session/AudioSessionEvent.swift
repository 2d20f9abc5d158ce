extension AudioSession {
    /// What ``AudioSession/events()`` delivers, in the order it happened.
    public enum Event: Equatable, Sendable {
        /// Players and recorders were paused: the process was stopped (Ctrl-Z), the system suspended the
        /// device, or another program took it (in an ``Category/ambient`` session players play on).
        case interruptionBegan(InterruptionReason)
        /// The interruption is over; `shouldResume` says audio may resume now (with
        /// ``CategoryOptions/resumeAfterInterruption`` the session has resumed it already).
        case interruptionEnded(InterruptionReason, shouldResume: Bool)
        /// A device appeared or vanished, or the category or a preferred device changed. `port` is the
        /// device concerned, when there is one; `previousRoute` is the route before the change.
        case routeChanged(RouteChangeReason, port: PortDescription?, previousRoute: RouteDescription)
        /// The stream on `device` failed for good; players on it pause and recorders on it finish.
        case mediaServicesWereLost(device: String)
        /// A new stream was opened on `device` after it had been lost.
        case mediaServicesWereReset(device: String)

        /// The event's name, as `voicememo devices --watch --json` prints it.
        public var name: String {
            switch self {
            case .interruptionBegan: "interruptionBegan"
            case .interruptionEnded: "interruptionEnded"
            case .routeChanged: "routeChange"
            case .mediaServicesWereLost: "mediaServicesWereLost"
            case .mediaServicesWereReset: "mediaServicesWereReset"
            }
        }
    }

    /// Why an interruption began.
    public enum InterruptionReason: String, Sendable {
        /// The process was stopped (SIGTSTP, Ctrl-Z in a terminal) and continued (SIGCONT, `fg`).
        case processSuspended
        /// The system suspended the device (`-ESTRPIPE` from alsa-lib).
        case systemSuspended
        /// Another program took the device (`-EBUSY` from alsa-lib); it ends when the device is free again,
        /// which the session tries every 0.3 s.
        case deviceInUse
    }

    /// Why the route changed, as `AVAudioSession.RouteChangeReason` says it.
    public enum RouteChangeReason: String, Sendable {
        /// A card, or a jack's device (headphones plugged in), became available.
        case newDeviceAvailable
        /// A card, or a jack's device, went away; if it was in use, playback paused and recording stopped.
        case oldDeviceUnavailable
        /// ``AudioSession/setCategory(_:options:)`` changed the category.
        case categoryChange
        /// A preferred input or output was set.
        case override
    }
}
