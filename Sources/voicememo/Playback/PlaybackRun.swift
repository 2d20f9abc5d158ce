import AudioIO
import FoundationEssentials
import SystemEdge

/// `play` from the start of its ``PlayedMemos`` to their end: until they play out or fail, the user quits (the `q` key, a
/// remote's Stop, the sleep timer), a stop signal comes, or the device goes away.
final class PlaybackRun: Sendable {
    let memos: PlayedMemos
    /// Whether playback whose device went away stays paused for the user to resume (a terminal's space key);
    /// otherwise it ends with ``DeviceLost``.
    let pausesOnDeviceLoss: Bool
    private let outcomes: AsyncStream<Outcome>
    private let continuation: AsyncStream<Outcome>.Continuation

    init(_ memos: PlayedMemos, pausesOnDeviceLoss: Bool) {
        self.memos = memos
        self.pausesOnDeviceLoss = pausesOnDeviceLoss
        (outcomes, continuation) = AsyncStream<Outcome>.makeStream()
    }

    /// How playback ended.
    enum Ending: Equatable, Sendable {
        /// It played to its end, or the user quit.
        case completed
        /// A stop signal ended it: SIGINT (Ctrl-C), SIGTERM or SIGHUP (the terminal closed).
        case stopped(signal: Signal)
    }

    /// Ends playback as the user asked: ``run()`` returns ``Ending/completed``.
    func quit() {
        continuation.yield(.quit)
    }

    /// Starts playing, then waits for the end.
    ///
    /// - Throws: ``AudioPlayerFailure`` when playback cannot start or its device fails; ``DeviceLost`` when the device
    ///   went away and playback does not pause for it.
    func run() async throws -> Ending {
        // Watched only when a lost device ends playback; playback that pauses for it lets the session say why.
        let device = memos.playback.currentDevice ?? "default"
        let sessionEvents = pausesOnDeviceLoss ? nil : AudioSession.shared.events()
        let watcher = sessionEvents.map { sessionEvents in
            Task { [continuation] in
                for await event in sessionEvents {
                    if case .routeChanged(.oldDeviceUnavailable, let port?, _) = event, port.name == device {
                        continuation.yield(.deviceLost(port.name))
                    }
                }
            }
        }
        defer { watcher?.cancel() }
        let signals = StopSignals { [continuation] in continuation.yield(.interrupted) }
        defer { withExtendedLifetime(signals) {} }
        try memos.start { [continuation] outcome in continuation.yield(.ended(outcome)) }
        // Ended otherwise than by playing out, playback stops at once: the command is about to return.
        let playback = memos.playback
        for await outcome in outcomes {
            switch outcome {
            case .ended(.finished):
                return .completed
            case .ended(.failed(let status)):
                playback.pause()
                throw AudioPlayerFailure(status: status)
            case .quit:
                playback.pause()
                return .completed
            case .interrupted:
                playback.pause()
                return .stopped(signal: signals.received ?? .interrupt)
            case .deviceLost(let device):
                let position = playback.currentTime
                let title = memos.place == nil ? nil : memos.title
                playback.pause()
                throw DeviceLost(device: device, position: position, title: title)
            }
        }
        return .stopped(signal: signals.received ?? .interrupt)
    }

    private enum Outcome: Sendable {
        case ended(PlaybackOutcome)
        case quit
        case interrupted
        case deviceLost(String)
    }
}

/// A player that failed to start or stopped on a failure.
struct AudioPlayerFailure: Error, CustomStringConvertible {
    let status: AudioPlayer.Status

    var description: String {
        guard case .failed(let error) = status else { return "playback stopped" }
        return Describe.failure(error)
    }
}

/// The device played on went away while nobody could resume playback by a key.
struct DeviceLost: Error, CustomStringConvertible {
    let device: String
    /// Seconds into the memo heard.
    let position: TimeInterval
    /// The memo heard, when it was one of several played in turn.
    let title: String?

    var description: String {
        let memo = title.map { " of “\($0.terminalSafe)”" } ?? ""
        let from = title == nil ? "" : " from it"
        return "audio device '\(device)' went away; playback paused at \(Describe.duration(position))\(memo) — "
            + "play again\(from) with --start \(Describe.number(position, "%.1f")) when it is back, or pick another with --device"
    }
}
