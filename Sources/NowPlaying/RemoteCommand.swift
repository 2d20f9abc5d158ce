import FoundationEssentials
import Synchronization

/// What a remote control asked for, with its argument, as the `MPRemoteCommandEvent` subclasses carry it.
public enum RemoteCommandEvent: Equatable, Sendable {
    case play, pause, togglePlayPause, stop, nextTrack, previousTrack
    /// Seconds to move forward.
    case skipForward(interval: TimeInterval)
    /// Seconds to move back.
    case skipBackward(interval: TimeInterval)
    /// Seconds into the item to go to.
    case changePlaybackPosition(TimeInterval)
    /// The new speed, within the command's supported rates.
    case changePlaybackRate(Double)
    /// The new volume, 0…1.
    case changeVolume(Double)
}

/// How a handler dealt with a command, as `MPRemoteCommandHandlerStatus`.
public enum RemoteCommandHandlerStatus: Sendable {
    case success
    case noSuchContent
    case noActionableNowPlayingItem
    case commandFailed
}

/// A command that remote controls (media keys, desktop widgets, `playerctl`) may send, as `MPRemoteCommand`.
///
/// A command is offered to them while it has a target and ``isEnabled`` is true.
///
/// **Thread safety**: every member may be used from any thread; handlers are called on the bus's thread.
public class RemoteCommand: @unchecked Sendable {
    /// A handler added with ``addTarget(handler:)``; pass it to ``removeTarget(_:)``.
    public final class Target: Sendable {
        fileprivate let handler: @Sendable (RemoteCommandEvent) -> RemoteCommandHandlerStatus
        fileprivate init(_ handler: @escaping @Sendable (RemoteCommandEvent) -> RemoteCommandHandlerStatus) {
            self.handler = handler
        }
    }

    private struct State {
        var isEnabled = true
        var targets: [Target] = []
    }

    private let state = Mutex(State())
    /// Tells the publisher that what is offered may have changed.
    let changed: @Sendable () -> Void

    init(changed: @escaping @Sendable () -> Void) {
        self.changed = changed
    }

    /// Whether the command is offered (given a target); true until set otherwise.
    public var isEnabled: Bool {
        get { state.withLock { $0.isEnabled } }
        set {
            state.withLock { $0.isEnabled = newValue }
            changed()
        }
    }

    /// Whether remote controls are told they may send it.
    var isOffered: Bool { state.withLock { $0.isEnabled && !$0.targets.isEmpty } }

    /// Adds `handler`, called with each event of this command.
    @discardableResult
    public func addTarget(handler: @escaping @Sendable (RemoteCommandEvent) -> RemoteCommandHandlerStatus) -> Target {
        let target = Target(handler)
        state.withLock { $0.targets.append(target) }
        changed()
        return target
    }

    /// Removes a handler added by ``addTarget(handler:)``.
    public func removeTarget(_ target: Target) {
        state.withLock { $0.targets.removeAll { $0 === target } }
        changed()
    }

    /// Calls the handlers with `event` while the command is offered; the last one's status, or
    /// ``RemoteCommandHandlerStatus/commandFailed`` when none handled it.
    @discardableResult
    func send(_ event: RemoteCommandEvent) -> RemoteCommandHandlerStatus {
        let targets = state.withLock { $0.isEnabled ? $0.targets : [] }
        return targets.map { $0.handler(event) }.last ?? .commandFailed
    }
}

/// Skipping forward or back, with the intervals a control should offer, as `MPSkipIntervalCommand`.
public final class SkipIntervalCommand: RemoteCommand, @unchecked Sendable {
    private let intervals = Mutex<[TimeInterval]>([15])

    /// Seconds a control skips; the first is used. MPRIS clients send their own offsets (`Seek`) instead.
    public var preferredIntervals: [TimeInterval] {
        get { intervals.withLock { $0 } }
        set { intervals.withLock { $0 = newValue } }
    }
}

/// Changing the speed, within the rates offered, as `MPChangePlaybackRateCommand`.
public final class ChangePlaybackRateCommand: RemoteCommand, @unchecked Sendable {
    private let rates = Mutex<[Double]>([0.5, 0.75, 1, 1.25, 1.5, 2])

    /// The speeds offered; their lowest and highest are MPRIS's `MinimumRate` and `MaximumRate`.
    public var supportedPlaybackRates: [Double] {
        get { rates.withLock { $0 } }
        set {
            rates.withLock { $0 = newValue }
            changed()
        }
    }
}
