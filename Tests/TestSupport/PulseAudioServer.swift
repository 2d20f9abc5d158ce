import Foundation

/// A private PulseAudio server with one null sink, `spk`: a clocked sound card for machines that have
/// none (DESIGN §7). What is played into it plays in real time, and what is recorded from its default
/// source is the sink's monitor: play and record at once for an end-to-end loop with a real clock.
///
/// Everything it owns lives in a fresh 0700 directory (runtime directory, socket, home), so it touches
/// no one's PulseAudio and several can run side by side. It runs as root too (`--system=false`: a
/// per-user daemon), with no D-Bus, no shared memory, no real-time scheduling and no CPU limiter, which
/// a fresh CI machine may not have or may not grant. It is stopped by its pid when released, or when
/// the process exits.
///
/// ```swift
/// let server = try PulseAudioServer.shared()
/// let player = try AudioPlayer(contentsOf: tone)
/// player.currentDevice = server.device      // in this process
/// Tool.run(binary, ["record", "--device", "pulse"], environment: server.environment)  // in a child
/// ```
public final class PulseAudioServer: @unchecked Sendable {
    /// The name of the null sink; its monitor is the default source.
    public static let sinkName = "spk"

    /// The server's process id.
    public let pid: Int32
    /// The socket clients connect to.
    public let socket: String
    private let directory: URL
    private let log: String
    private let lock = NSLock()
    private var sinkModule: Int?

    /// The server this test process shares, started on first use.
    public static func shared() throws -> PulseAudioServer {
        try sharedServer.get()
    }

    private static let sharedServer = Result<PulseAudioServer, any Error> { try PulseAudioServer() }

    /// The servers still running, by pid, with their directories: stopped and removed at exit.
    private static let running = NSLock()
    nonisolated(unsafe) private static var runningServers: [Int32: URL] = [:]

    /// Starts a server of its own and waits until it answers (at most 10 s).
    public init() throws {
        try ALSATestDevices.install()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("voicememo-pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        socket = directory.appendingPathComponent("native").path
        log = directory.appendingPathComponent("pulseaudio.log").path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["HOME"] = directory.path
        environment["PULSE_SERVER"] = nil
        pid = try Self.spawn([
            "/usr/bin/env", "pulseaudio", "-n", "--daemonize=no", "--system=false", "--exit-idle-time=-1",
            "--disallow-exit", "--use-pid-file=no", "--disable-shm=yes", "--realtime=no", "--high-priority=no",
            "--no-cpu-limit=yes", "--log-target=stderr", "--log-level=error",
            "--load=module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
            "--load=module-null-sink sink_name=\(Self.sinkName)",
        ], environment: environment, standardError: log)
        Self.running.withLock { Self.runningServers[pid] = directory }
        _ = Self.stopAllAtExit

        let deadline = Date().addingTimeInterval(10)
        while try pactl(["info"]).status != 0 {
            guard isRunning, Date() < deadline else {
                stop()
                let message = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw PulseAudioFailure(description: "pulseaudio did not start: \(message)")
            }
            usleep(10_000)
        }
        sinkModule = try moduleIndex(of: "module-null-sink")
    }

    deinit { stop() }

    /// The ALSA PCM name that reaches this server from this process: plays to `spk`, records its monitor.
    public var device: String { "testpulse:'unix:\(socket)'" }

    /// What a child process needs in its environment to reach this server through ALSA's `pulse` PCM
    /// (and `default`, which alsa-lib routes to PulseAudio when a server answers), and the test devices.
    public var environment: [String: String] {
        get throws {
            var environment = ProcessInfo.processInfo.environment.merging(try ALSATestDevices.environment()) { $1 }
            environment["PULSE_SERVER"] = "unix:\(socket)"
            return environment
        }
    }

    /// Unloads the null sink, as a sound card vanishing would: streams on it end.
    public func unloadSink() throws {
        guard let module = lock.withLock({ sinkModule }) else { return }
        let result = try pactl(["unload-module", "\(module)"])
        guard result.status == 0 else { throw ToolFailure(command: "pactl unload-module \(module)", result: result) }
        lock.withLock { sinkModule = nil }
    }

    /// Loads the null sink again after ``unloadSink()``.
    public func loadSink() throws {
        guard lock.withLock({ sinkModule }) == nil else { return }
        let result = try pactl(["load-module", "module-null-sink", "sink_name=\(Self.sinkName)"])
        guard result.status == 0 else { throw ToolFailure(command: "pactl load-module module-null-sink", result: result) }
        let module = try moduleIndex(of: "module-null-sink")
        lock.withLock { sinkModule = module }
    }

    /// Stops the server (SIGTERM to its pid), waits for it to go and removes its directory. Calling it
    /// again does nothing.
    public func stop() {
        let wasRunning = Self.running.withLock { Self.runningServers.removeValue(forKey: pid) != nil }
        guard wasRunning else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether the daemon still runs (it has not exited, or exited and is not yet reaped).
    private var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Starts `arguments` with `posix_spawn`, standard error into the file `standardError`.
    ///
    /// Not Foundation's `Process`: it learns of a child's exit from a socket the child inherits, so a
    /// daemon that closes its inherited descriptors at startup, as pulseaudio does, makes it block in
    /// `waitpid` on the live daemon, and from then on no `Process` of the test process is ever reaped.
    private static func spawn(_ arguments: [String], environment: [String: String], standardError: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else {
            throw PulseAudioFailure(description: "cannot start pulseaudio: \(String(cString: strerror(result)))")
        }
        return pid
    }

    private func pactl(_ arguments: [String]) throws -> ToolResult {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path
        environment["XDG_RUNTIME_DIR"] = directory.path
        return try Tool.run("pactl", ["--server=unix:\(socket)"] + arguments, environment: environment)
    }

    private func moduleIndex(of name: String) throws -> Int? {
        let listing = try pactl(["list", "short", "modules"]).standardOutput
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count > 1, fields[1] == name { return Int(fields[0]) }
        }
        return nil
    }

    /// Registers, once, the exit handler that stops every server still running: a test process that
    /// ends must not leave daemons behind.
    private static let stopAllAtExit: Void = {
        atexit {
            let servers = PulseAudioServer.running.withLock { PulseAudioServer.runningServers }
            for (pid, directory) in servers {
                kill(pid, SIGTERM)
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }()
}

/// The server could not be started.
public struct PulseAudioFailure: Error, CustomStringConvertible {
    public let description: String
}
