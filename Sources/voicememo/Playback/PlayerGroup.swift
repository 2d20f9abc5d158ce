import AudioIO
import FoundationEssentials
import Glibc

/// Players started on one device time, so that they begin on the same frame, and waited for together.
final class PlayerGroup: Sendable {
    /// How far ahead of the device clock the common start is set: enough for every player to reach the
    /// render thread before its first frame.
    static let startDelay: TimeInterval = 0.1

    let players: [AudioPlayer]
    /// Whether players whose device went away stay paused for the user to resume (a terminal's space
    /// key); otherwise playback ends with ``DeviceLost``.
    let pausesOnDeviceLoss: Bool
    private let outcomes: AsyncStream<Outcome>
    private let continuation: AsyncStream<Outcome>.Continuation

    init(players: [AudioPlayer], pausesOnDeviceLoss: Bool) {
        self.players = players
        self.pausesOnDeviceLoss = pausesOnDeviceLoss
        (outcomes, continuation) = AsyncStream<Outcome>.makeStream()
    }

    /// How playback ended.
    enum Ending: Equatable, Sendable {
        /// Every player played to its end, or the user quit (the `q` key).
        case completed
        /// A stop signal ended it: SIGINT (Ctrl-C), SIGTERM or SIGHUP (the terminal closed).
        case stopped(signal: Int32)
    }

    /// Ends playback as the user asked (the `q` key): ``playTogether()`` returns ``Ending/completed``.
    func quit() {
        continuation.yield(.quit)
    }

    /// Starts every player (one alone at once, several on one device time ``startDelay`` ahead), then waits
    /// until all have finished or the user quit, or a stop signal stopped them.
    ///
    /// - Throws: ``AudioPlayerFailure`` when a player cannot start or its device fails; ``DeviceLost``
    ///   when the device went away and the group does not pause for it.
    func playTogether() async throws -> Ending {
        // Watched only when a lost device ends playback; a group that pauses for it lets the session say why.
        let devices = Set(players.map { $0.currentDevice ?? "default" })
        let sessionEvents = pausesOnDeviceLoss ? nil : AudioSession.shared.events()
        let watcher = sessionEvents.map { sessionEvents in
            Task { [continuation] in
                for await event in sessionEvents {
                    if case .routeChanged(.oldDeviceUnavailable, let port?, _) = event, devices.contains(port.name) {
                        continuation.yield(.deviceLost(port.name))
                    }
                }
            }
        }
        defer { watcher?.cancel() }
        for player in players {
            let events = player.events()
            Task { [continuation] in
                for await event in events {
                    if case .finishedPlaying(let successfully) = event {
                        continuation.yield(successfully ? .finished : .failed(player.status))
                        return
                    }
                }
            }
        }
        let signals = StopSignals { [continuation] in continuation.yield(.interrupted) }
        defer { withExtendedLifetime(signals) {} }
        // One player has no one to start with: it starts at once, not after the delay a common start needs.
        if players.count == 1 {
            guard players[0].play() else { throw AudioPlayerFailure(status: players[0].status) }
        } else {
            let time = players[0].deviceCurrentTime + Self.startDelay
            for player in players where !player.play(atTime: time) {
                throw AudioPlayerFailure(status: player.status)
            }
        }
        var finished = 0
        for await outcome in outcomes {
            switch outcome {
            case .finished:
                finished += 1
                if finished == players.count { return .completed }
            case .failed(let status):
                players.forEach { $0.stop() }
                throw AudioPlayerFailure(status: status)
            case .quit:
                players.forEach { $0.stop() }
                return .completed
            case .interrupted:
                players.forEach { $0.stop() }
                return .stopped(signal: signals.received ?? SIGINT)
            case .deviceLost(let device):
                let position = players[0].currentTime
                players.forEach { $0.stop() }
                throw DeviceLost(device: device, position: position)
            }
        }
        return .stopped(signal: signals.received ?? SIGINT)
    }

    private enum Outcome: Sendable {
        case finished
        case failed(AudioPlayer.Status)
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
    let position: TimeInterval

    var description: String {
        "audio device '\(device)' went away; playback paused at \(Describe.duration(position)) — "
            + "play again with --start \(Describe.number(position, "%.1f")) when it is back, or pick another with --device"
    }
}
