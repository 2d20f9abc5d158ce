import Foundation

/// A private PulseAudio server with one null sink, `spk`: a clocked sound card for machines that have
/// none (DESIGN §7). What is played into it plays in real time, and what is recorded from its default
/// source is the sink's monitor: play and record at once for an end-to-end loop with a real clock.
///
/// Everything it owns lives in a fresh 0700 directory (runtime directory, socket, home), so it touches
/// no one's PulseAudio and several can run side by side. It runs as root too (`--system=false`: a
/// per-user daemon), with no D-Bus, no shared memory and no CPU limiter, which a fresh CI machine may
/// not have; it asks for real-time scheduling, so that a machine busy with other tests does not starve
/// its sink (without the right to it, it runs on without). It is stopped by its pid when released, when
/// the process exits, and, should the process crash, by a watchdog shell that outlives it by a second.
///
/// ```swift
/// try await PulseAudioServer.exclusive { server in
///     let player = try AudioPlayer(contentsOf: tone)
///     player.currentDevice = server.device      // in this process
///     try Tool.run(binary, ["record", "--device", "pulse"], environment: server.environment)  // in a child
/// }
/// ```
///
/// A test that changes the server (``unloadSink()``) starts one of its own with ``init()``.
public final class PulseAudioServer: @unchecked Sendable {
    /// The name of the null sink; its monitor is the default source.
    public static let sinkName = "spk"
    /// The sink runs at 48 kHz, the rate AudioIO's engines ask for, so that nothing is resampled on the
    /// way through the server.
    private static let sinkArguments = "sink_name=\(sinkName) rate=48000"

    /// The server's process id.
    public let pid: Int32
    /// The socket clients connect to.
    public let socket: String
    private let directory: URL
    private let log: String
    /// The environment of the daemon and of our own clients of it: home and runtime directory private.
    private let privateEnvironment: [String: String]
    /// The pid of the `parec` that keeps the sink's clock in 10 ms steps.
    private var monitorReader: Int32?
    /// The pid of the shell that stops the server if this process dies without stopping it.
    private var watchdog: Int32 = 0
    private let lock = NSLock()
    private var sinkModule: Int?

    /// Runs `body` with the server this test process shares (started on first use), one test at a time:
    /// real-time tests that run together load the machine and play into each other's sink. Leave the
    /// sink as you found it: stop what you play.
    ///
    /// The wait in line counts against a test's time limit, and the line can last as long as the group of suites
    /// that take turns (two minutes of `make test`'s clocked group): a suite that takes turns allows three minutes
    /// (a test waited 112 s for its turn, and failed its one-minute limit having done nothing wrong).
    public static func exclusive<T>(_ body: (PulseAudioServer) async throws -> T) async throws -> T {
        let server = try sharedServer.get()
        await turns.take()
        do {
            let result = try await body(server)
            await turns.pass()
            return result
        } catch {
            await turns.pass()
            throw error
        }
    }

    /// Runs `body` with a server of its own, started for it and stopped after it: for a test that plays long, or whose
    /// sink must hear nothing else, without a turn on the shared server (whose queue counts against the time limits of
    /// the tests waiting in it).
    public static func own<T>(_ body: (PulseAudioServer) async throws -> T) async throws -> T {
        let server = try PulseAudioServer()
        defer { server.stop() }
        return try await body(server)
    }

    private static let sharedServer = Result<PulseAudioServer, any Error> { try PulseAudioServer() }
    private static let turns = Turns()

    /// One holder at a time, the others waiting in line.
    private actor Turns {
        private var isTaken = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard isTaken else {
                isTaken = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func pass() {
            if waiting.isEmpty {
                isTaken = false
            } else {
                waiting.removeFirst().resume()
            }
        }
    }

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
        var environment = Tool.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["HOME"] = directory.path
        environment["PULSE_SERVER"] = nil
        privateEnvironment = environment
        pid = try Self.spawn([
            "/usr/bin/env", "pulseaudio", "-n", "--daemonize=no", "--system=false", "--exit-idle-time=-1",
            "--disallow-exit", "--use-pid-file=no", "--disable-shm=yes", "--realtime=yes", "--high-priority=yes",
            "--no-cpu-limit=yes", "--log-target=stderr", "--log-level=error",
            "--load=module-native-protocol-unix auth-anonymous=1 socket=\(socket)",
            "--load=module-null-sink \(Self.sinkArguments)",
        ], environment: environment, standardError: log)
        Self.running.withLock { Self.runningServers[pid] = directory }
        _ = Self.stopAllAtExit
        // Should this process die without running its exit handler (a crash), this stops the server.
        watchdog = try Self.spawn([
            "/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill \(pid); rm -rf '\(directory.path)'",
        ], environment: environment, standardError: "/dev/null")

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
        try keepSinkClockFine()
    }

    deinit { stop() }

    /// The ALSA PCM name that reaches this server from this process: plays to `spk`, records its monitor.
    public var device: String { "testpulse:'unix:\(socket)'" }

    /// Starts `parec` recording what the sink plays (its monitor) into the WAV file at `path`, 16-bit at 48 kHz in
    /// `channels` channels, until it is sent SIGINT.
    public func recordMonitor(to path: String, channels: Int) throws -> RunningTool {
        try Tool.start("parec", [
            "--server=unix:\(socket)", "--device=\(Self.sinkName).monitor", "--file-format=wav",
            "--format=s16le", "--rate=48000", "--channels=\(channels)", "--latency-msec=20", path,
        ], environment: try environment)
    }

    /// What a child process needs in its environment to reach this server through ALSA's `pulse` PCM
    /// (and `default`, which alsa-lib routes to PulseAudio when a server answers), and the test devices.
    public var environment: [String: String] {
        get throws {
            var environment = Tool.environment.merging(try ALSATestDevices.environment()) { $1 }
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
        stopMonitorReader()
    }

    /// Loads the null sink again after ``unloadSink()``.
    public func loadSink() throws {
        guard lock.withLock({ sinkModule }) == nil else { return }
        let result = try pactl(["load-module", "module-null-sink"] + Self.sinkArguments.split(separator: " ").map(String.init))
        guard result.status == 0 else { throw ToolFailure(command: "pactl load-module module-null-sink", result: result) }
        let module = try moduleIndex(of: "module-null-sink")
        lock.withLock { sinkModule = module }
        try keepSinkClockFine()
    }

    /// Plays a sine of `frequency` hertz with peaks at `amplitude` of full scale (at most 0.5) on both of the sink's
    /// channels until it is stopped. The server makes it itself (`module-sine`), in its real-time thread: a client
    /// player, such as aplay, can be held back by a busy machine for longer than its buffer, and the sink then plays
    /// silence in the middle of the tone.
    public func playSine(frequency: Int, amplitude: Double = 0.5) throws -> ServerSine {
        let loaded = try pactl(["load-module", "module-sine", "sink=\(Self.sinkName)", "frequency=\(frequency)"])
        guard loaded.status == 0, let module = Int(loaded.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw ToolFailure(command: "pactl load-module module-sine", result: loaded) }
        let sine = ServerSine(server: self, module: module)
        // module-sine's peaks are at half of full scale; a linear factor (pactl reads a number with a point as one)
        // scales them.
        guard let input = try sinkInput(ownedBy: module) else {
            sine.stop()
            throw PulseAudioFailure(description: "module-sine made no sink input")
        }
        let volume = try pactl(["set-sink-input-volume", "\(input)", String(format: "%.6f", amplitude / 0.5)])
        guard volume.status == 0 else { sine.stop(); throw ToolFailure(command: "pactl set-sink-input-volume", result: volume) }
        return sine
    }

    /// The index of the sink input that `module` made, from pactl's long listing ("Sink Input #3" … "Owner Module: 9").
    private func sinkInput(ownedBy module: Int) throws -> Int? {
        var input: Int?
        for line in try pactl(["list", "sink-inputs"]).standardOutput.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Sink Input #") { input = Int(text.dropFirst("Sink Input #".count)) }
            if text == "Owner Module: \(module)" { return input }
        }
        return nil
    }

    fileprivate func unloadModule(_ module: Int) {
        _ = try? pactl(["unload-module", "\(module)"])
    }

    /// Makes a new stream's first frame come within milliseconds. An idle null sink renders in blocks
    /// of 2 s, and a stream that connects waits for the block under way to end, up to 2 s, before its
    /// lower latency applies. So a `parec` reads the monitor asking for 10 ms, for as long as the sink
    /// exists, and once it is connected the sink is suspended and resumed, which restarts its clock at
    /// that latency.
    private func keepSinkClockFine() throws {
        let reader = try Self.spawn(
            ["/usr/bin/env", "parec", "--server=unix:\(socket)", "--latency-msec=10", "--raw"],
            environment: privateEnvironment, standardError: "/dev/null")
        lock.withLock { monitorReader = reader }
        let deadline = Date().addingTimeInterval(10)
        while try pactl(["list", "short", "source-outputs"]).standardOutput.isEmpty {
            guard Date() < deadline else { throw PulseAudioFailure(description: "parec did not connect to the monitor") }
            usleep(5000)
        }
        for suspended in ["1", "0"] {
            let result = try pactl(["suspend-sink", Self.sinkName, suspended])
            guard result.status == 0 else { throw ToolFailure(command: "pactl suspend-sink \(suspended)", result: result) }
        }
    }

    /// Lets the sink render in its idle blocks of 2 s again, as it does on a server where no client asked for a
    /// short latency: a new stream's first frames then come up to 2 s after it connects. For a server of the test's
    /// own (``init()``).
    public func letSinkClockIdle() throws {
        stopMonitorReader()
        for suspended in ["1", "0"] {
            let result = try pactl(["suspend-sink", Self.sinkName, suspended])
            guard result.status == 0 else { throw ToolFailure(command: "pactl suspend-sink \(suspended)", result: result) }
        }
    }

    private func stopMonitorReader() {
        guard let reader = lock.withLock({ monitorReader.take() }) else { return }
        kill(reader, SIGKILL)
        var status: Int32 = 0
        while waitpid(reader, &status, 0) == -1, errno == EINTR {}
    }

    /// Stops the server (SIGTERM to its pid), waits for it to go and removes its directory. Calling it
    /// again does nothing.
    public func stop() {
        let wasRunning = Self.running.withLock { Self.runningServers.removeValue(forKey: pid) != nil }
        guard wasRunning else { return }
        stopMonitorReader()
        var status: Int32 = 0
        if watchdog > 0 {
            kill(watchdog, SIGKILL)
            while waitpid(watchdog, &status, 0) == -1, errno == EINTR {}
        }
        kill(pid, SIGTERM)
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether the daemon still runs (it has not exited, or exited and is not yet reaped).
    private var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Starts `arguments` with `posix_spawn`, standard error into the file `standardError`, and no other
    /// descriptor of this process.
    ///
    /// Not Foundation's `Process`: it learns of a child's exit from a socket the child inherits, so a
    /// daemon that closes its inherited descriptors at startup, as pulseaudio does, makes it block in
    /// `waitpid` on the live daemon, and from then on no `Process` of the test process is ever reaped.
    /// And nothing inherited: a long-lived child holding the write end of another test's pipe would keep
    /// that test waiting for the end of its tool's output.
    private static func spawn(_ arguments: [String], environment: [String: String], standardError: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        try actions.closeDescriptors(from: 3)
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
        try Tool.run("pactl", ["--server=unix:\(socket)"] + arguments, environment: privateEnvironment)
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

/// A tone the server plays into its sink (``PulseAudioServer/playSine(frequency:amplitude:)``).
public final class ServerSine: Sendable {
    private let server: PulseAudioServer
    private let module: Int

    fileprivate init(server: PulseAudioServer, module: Int) {
        self.server = server
        self.module = module
    }

    /// Stops the tone: the sink is silent from its next block on.
    public func stop() { server.unloadModule(module) }
}

/// The server could not be started.
public struct PulseAudioFailure: Error, CustomStringConvertible {
    public let description: String
}

#if canImport(Testing)
import Testing

/// The server itself, checked with pactl: it answers, and its sink goes and comes back as tests need.
@Suite struct PulseAudioServerTests {
    @Test func thePulseAudioServerAnswersAndItsSinkCanBeUnloaded() throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
        let environment = try server.environment
        let listing = try Tool.run("pactl", ["list", "short", "sinks"], environment: environment)
        #expect(listing.standardOutput.contains(PulseAudioServer.sinkName))
        try server.unloadSink()
        #expect(try !Tool.run("pactl", ["list", "short", "sinks"], environment: environment).standardOutput
            .contains(PulseAudioServer.sinkName))
        try server.loadSink()
        #expect(try Tool.run("pactl", ["list", "short", "sinks"], environment: environment).standardOutput
            .contains(PulseAudioServer.sinkName))
    }
}
#endif
