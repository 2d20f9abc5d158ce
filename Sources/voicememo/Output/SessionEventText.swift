import AudioIO
import FoundationEssentials
import Synchronization
import SystemEdge

/// An ``AudioSession`` event in words, for `devices --watch` and the notices of `record` and `play`.
enum SessionEventText {
    /// One line, e.g. `route change: new device available: hw:1 (USB Audio CODEC)`.
    static func line(_ event: AudioSession.Event) -> String {
        switch event {
        case .interruptionBegan(let reason): "interruption began: \(reason.words)"
        case .interruptionEnded(let reason, let shouldResume):
            "interruption ended: \(reason.words)" + (shouldResume ? ", audio may resume" : "")
        case .routeChanged(let reason, let port, _):
            "route change: \(reason.words)" + (port.map { ": \($0.name.terminalSafe) (\($0.description.terminalSafe))" } ?? "")
        case .mediaServicesWereLost(let device): "media services lost: the stream on '\(device.terminalSafe)' failed"
        case .mediaServicesWereReset(let device): "media services reset: '\(device.terminalSafe)' is open again"
        }
    }

    /// What a recording or playback in progress says about `event`, or `nil` when it does not concern it.
    /// `devices` are the devices it uses; `keys` whether the user can press space to resume; `pausedByKey` whether
    /// the user paused it with space, which an interruption leaves as it is.
    static func notice(
        _ event: AudioSession.Event, recording: Bool, devices: [String], keys: Bool, pausedByKey: Bool = false
    ) -> String? {
        let what = recording ? "recording" : "playback"
        switch event {
        case .interruptionBegan(.processSuspended) where pausedByKey: return "stopped (Ctrl-Z) — \(what) stays paused"
        case .interruptionBegan(.processSuspended): return "stopped (Ctrl-Z) — \(what) paused; fg resumes it"
        case .interruptionBegan(.systemSuspended): return "the system suspended the device — \(what) paused"
        case .interruptionBegan(.deviceInUse): return "another program holds the device — \(what) waits for it"
        case .interruptionEnded where pausedByKey: return "\(what) still paused; space resumes it"
        case .interruptionEnded: return "\(what) resumed"
        case .routeChanged(.oldDeviceUnavailable, let port?, _) where devices.contains(port.name):
            let lost = switch port.type {
            case .headphones: "headphones unplugged"
            case .headsetMic: "microphone unplugged"
            default: "'\(port.name.terminalSafe)' went away"
            }
            if recording { return "\(lost) — recording stopped; what was captured is kept" }
            return "\(lost) — paused" + (keys ? ", press space to resume" : "")
        case .routeChanged(.newDeviceAvailable, let port?, _):
            return "new device: \(port.name.terminalSafe) (\(port.description.terminalSafe)); \(what) stays where it is"
        default: return nil
        }
    }
}

/// Shows ``SessionEventText/notice(_:recording:devices:keys:)`` lines while a command records or plays:
/// above the live display on a terminal, otherwise as plain lines.
final class SessionNotices: Sendable {
    /// The observer that shows the notices: called as the session's events happen, in order, and on Ctrl-Z
    /// before the process stops (which a stream's reader cannot count on).
    private let observation: AudioSession.ObservationToken?
    private let waiting: Waiting

    /// Whether another program holds the device, which the recording or playback waits for.
    var waitsForDevice: Bool { waiting.value.load(ordering: .acquiring) }

    private final class Waiting: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Makes the session resume what an interruption paused (Ctrl-Z, then `fg`) and, when `printing`,
    /// starts showing its notices, on `display` when there is one; `keyPause` tells whether the user paused
    /// with space (which the session does not resume).
    init(recording: Bool, devices: [String], keys: Bool, keyPause: KeyPause? = nil, display: TerminalDisplay?, printing: Bool) {
        let session = AudioSession.shared
        session.setCategory(recording ? .record : .playback, options: [.resumeAfterInterruption])
        let waiting = Waiting()
        self.waiting = waiting
        observation = session.addObserver { event in
            switch event {
            case .interruptionBegan(.deviceInUse): waiting.value.store(true, ordering: .releasing)
            case .interruptionEnded: waiting.value.store(false, ordering: .releasing)
            default: break
            }
            guard printing else { return }
            guard let notice = SessionEventText.notice(
                event, recording: recording, devices: devices, keys: keys, pausedByKey: keyPause?.isOn ?? false)
            else { return }
            if let display {
                display.note(notice)
            } else {
                print(notice)
                CurrentProcess.flushOutput()
            }
        }
    }
}

/// A session event as `devices --watch --json` prints it, one object per line.
struct SessionEventJSON: Encodable {
    struct Port: Encodable {
        let name: String
        let description: String
        let card: Int?
        let type: String

        init(_ port: PortDescription) {
            name = port.name
            description = port.description
            card = port.card
            type = port.type.rawValue
        }
    }

    struct Route: Encodable {
        let inputs: [Port]
        let outputs: [Port]
    }

    let event: String
    var reason: String?
    var shouldResume: Bool?
    var device: Port?
    var previousRoute: Route?
    var time: Date

    init(_ event: AudioSession.Event, at time: Date = Date()) {
        self.event = event.name
        self.time = time
        switch event {
        case .interruptionBegan(let reason): self.reason = reason.rawValue
        case .interruptionEnded(let reason, let shouldResume):
            self.reason = reason.rawValue
            self.shouldResume = shouldResume
        case .routeChanged(let reason, let port, let previous):
            self.reason = reason.rawValue
            device = port.map(Port.init)
            previousRoute = Route(inputs: previous.inputs.map(Port.init), outputs: previous.outputs.map(Port.init))
        case .mediaServicesWereLost(let name), .mediaServicesWereReset(let name):
            device = Port(PortDescription(name: name, description: name))
        }
    }
}

extension AudioSession.InterruptionReason {
    var words: String {
        switch self {
        case .processSuspended: "the process was stopped (Ctrl-Z)"
        case .systemSuspended: "the system suspended the device"
        case .deviceInUse: "another program holds the device"
        }
    }
}

extension AudioSession.RouteChangeReason {
    var words: String {
        switch self {
        case .newDeviceAvailable: "new device available"
        case .oldDeviceUnavailable: "old device unavailable"
        case .categoryChange: "category changed"
        case .override: "preferred device changed"
        }
    }
}
