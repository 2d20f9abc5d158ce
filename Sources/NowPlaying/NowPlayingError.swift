import SystemEdge
import SystemPackage

/// Why what is playing cannot be published to the desktop.
public struct NowPlayingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Reason: Equatable, Sendable {
        /// There is no session bus to publish on (a server, a bare container, no `DBUS_SESSION_BUS_ADDRESS`).
        case noSessionBus
        /// The session bus refused the player's name or its objects.
        case refused
        /// The connection to the session bus was lost.
        case busLost
    }

    public let reason: Reason
    /// The error the bus library reported.
    public let underlying: Errno

    init(opening error: Errno) {
        underlying = error
        reason = switch error {
        // No socket where the address says, nobody listening on it, no address and no XDG_RUNTIME_DIR to find one.
        case .noSuchFileOrDirectory, .connectionRefused, .noMedium: .noSessionBus
        default: .refused
        }
    }

    init(serving error: Errno) {
        underlying = error
        reason = .busLost
    }

    public var description: String {
        switch reason {
        case .noSessionBus: "no D-Bus session bus to publish what is playing on (\(underlying))"
        case .refused: "the D-Bus session bus refused the player (\(underlying))"
        case .busLost: "the connection to the D-Bus session bus was lost (\(underlying))"
        }
    }
}
