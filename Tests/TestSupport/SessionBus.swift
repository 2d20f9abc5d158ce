import Foundation

/// A private D-Bus session bus for this test process, as a desktop session has one: `dbus-daemon --session` on a
/// socket in a fresh directory, its address in this process's `DBUS_SESSION_BUS_ADDRESS` (read by sd-bus when the
/// first MPRIS player is published) and in ``environment`` for `playerctl` and `busctl`. Started on first use, stopped
/// when the process exits.
public final class SessionBus: Sendable {
    /// The bus of this test process.
    public static var shared: SessionBus {
        get throws { try started.get() }
    }

    private static let started = Result<SessionBus, any Error> { try SessionBus() }

    /// The address clients connect to, e.g. `unix:path=/tmp/…/bus`.
    public let address: String
    private let daemon: RunningTool
    private let directory: URL

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-bus-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        daemon = try Tool.start(
            "dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(directory.path)/bus", "--print-address=1"])
        guard let address = daemon.nextLine(timeout: 10), address.hasPrefix("unix:") else {
            daemon.kill()
            throw ToolFailure(command: "dbus-daemon --session", result: daemon.finish())
        }
        self.address = address
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
        atexit {
            guard case .success(let bus) = SessionBus.started else { return }
            kill(bus.daemon.processIdentifier, SIGTERM)
            try? FileManager.default.removeItem(at: bus.directory)
        }
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
