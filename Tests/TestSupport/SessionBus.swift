import Foundation

/// A private D-Bus session bus, as a desktop session has one: `dbus-daemon --session` on a socket in a fresh
/// directory, its address in ``environment`` for `playerctl`, `busctl` and the programs a test starts.
///
/// ``shared`` is this test process's own bus (its address also in the process's `DBUS_SESSION_BUS_ADDRESS`, read by
/// sd-bus when the first MPRIS player is published), started on first use and stopped when the process exits. A test
/// that starts players in other processes makes a bus of its own with ``init()``, so that no other test's player takes
/// the names it checks; it stops when the last reference goes.
public final class SessionBus: Sendable {
    /// The bus of this test process.
    public static var shared: SessionBus {
        get throws { try started.get() }
    }

    private static let started = Result<SessionBus, any Error> { try startShared() }

    private static func startShared() throws -> SessionBus {
        let bus = try SessionBus()
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        atexit {
            guard case .success(let bus) = SessionBus.started else { return }
            bus.stop()
        }
        return bus
    }

    /// The address clients connect to, e.g. `unix:path=/tmp/…/bus`.
    public let address: String
    private let daemon: RunningTool
    private let directory: URL

    /// Starts a bus of the caller's own.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-bus-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        daemon = try Tool.start(
            "dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(directory.path)/bus", "--print-address=1"])
        guard let address = daemon.nextLine(timeout: 10), address.hasPrefix("unix:") else {
            daemon.kill()
            throw ToolFailure(command: "dbus-daemon --session", result: daemon.finish())
        }
        self.address = address
    }

    deinit { stop() }

    private func stop() {
        daemon.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// ``Tool/environment`` with this bus as the session bus.
    public var environment: [String: String] {
        var environment = Tool.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }
}

#if canImport(Testing)
import Testing

/// The bus itself, checked with busctl: it answers on its address, and its programs are told where it is.
@Suite struct SessionBusTests {
    @Test func thePrivateBusAnswersOnItsAddress() throws {
        let bus = try SessionBus.shared
        #expect(bus.address.hasPrefix("unix:path=") && bus.environment["DBUS_SESSION_BUS_ADDRESS"] == bus.address)
        let names = try Tool.run("busctl", ["--user", "list", "--no-pager"], environment: bus.environment)
        #expect(names.status == 0 && names.standardOutput.contains("org.freedesktop.DBus"), "\(names.standardError)")
    }
}
#endif
