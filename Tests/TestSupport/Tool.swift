import Foundation
import Synchronization

/// What a finished process left behind.
public struct ToolResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
}

/// Runs the command-line tools the tests check our files with (sox, soxi, opusinfo, opusdec) and our own
/// binary, the way a person would, and captures what they print.
public enum Tool {
    /// The environment a program under test starts with: this process's, without the `NO_COLOR` that
    /// `swift test` sets for its own output, without the `AUDIOIO_SND_DIR` that ``ALSATestDevices/install()`` sets
    /// for this process's own session, and without the `DBUS_SESSION_BUS_ADDRESS` of ``SessionBus`` (a PulseAudio
    /// daemon there claims `org.pulseaudio.Server`, and a second one, failing to, exits; a `voicememo play` there
    /// publishes itself as an MPRIS player): a test that wants one sets it.
    public static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        environment["AUDIOIO_SND_DIR"] = nil
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        return environment
    }

    /// Runs `executable` (a name on `PATH` or a path) with `arguments`; never throws for a non-zero exit.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> ToolResult {
        try start(executable, arguments, environment: environment, input: input).finish()
    }

    /// Starts `executable` and returns at once, leaving it running in the background.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> RunningTool {
        try RunningTool(executable, arguments, environment: environment, input: input)
    }

    /// Runs `executable` and returns its standard output, throwing when it exits non-zero.
    @discardableResult
    public static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try run(executable, arguments)
        guard result.status == 0 else { throw ToolFailure(command: ([executable] + arguments).joined(separator: " "), result: result) }
        return result.standardOutput
    }
}

/// A tool running in the background: read what it prints as it goes, kill it, or wait for it to finish.
///
/// Started with `posix_spawnp`, its signals at their defaults and no descriptor of the test process but
/// its three pipes, and reaped by `waitpid` on its own pid: Foundation's `Process` was seen to leave
/// children unreaped while another child of the test process was stopped (Ctrl-Z tests).
public final class RunningTool: @unchecked Sendable {
    /// Its process id, e.g. to read its state in `/proc`.
    public let processIdentifier: Int32
    private let output: Int32
    private let error: Int32
    /// Standard output read by ``nextLine()`` beyond the lines it returned.
    private var unread = Data()
    /// How it ended, once reaped.
    private let ended = Mutex<Int32?>(nil)

    init(_ executable: String, _ arguments: [String], environment: [String: String]?, input: Data?) throws {
        var pipes: [(read: Int32, write: Int32)] = []
        for _ in 0..<3 {
            var ends: [Int32] = [0, 0]
            // Close-on-exec for children started otherwise; ours close every other descriptor anyway.
            guard pipe(&ends) == 0 else { throw SpawnFailure(description: "pipe: \(String(cString: strerror(errno)))") }
            ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
            pipes.append((ends[0], ends[1]))
        }
        var attributes = posix_spawnattr_t.defaultSignals()
        defer { posix_spawnattr_destroy(&attributes) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipes[0].read, 0)
        posix_spawn_file_actions_adddup2(&actions, pipes[1].write, 1)
        posix_spawn_file_actions_adddup2(&actions, pipes[2].write, 2)
        try actions.closeDescriptors(from: 3)

        let environment = environment ?? Tool.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: Int32 = 0
        let result = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        close(pipes[0].read)
        close(pipes[1].write)
        close(pipes[2].write)
        guard result == 0 else {
            [pipes[0].write, pipes[1].read, pipes[2].read].forEach { close($0) }
            throw SpawnFailure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
        output = pipes[1].read
        error = pipes[2].read
        if let input { _ = input.withUnsafeBytes { write(pipes[0].write, $0.baseAddress, $0.count) } }
        close(pipes[0].write)
    }

    deinit {
        close(output)
        close(error)
    }

    /// Whether it has not ended yet.
    public var isRunning: Bool { reap(waiting: false) == nil }

    /// The next line it prints on standard output, without the newline, waiting for it up to `timeout`
    /// seconds; `nil` when it ends first or the time is up.
    public func nextLine(timeout: Double = 30) -> String? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: unread[..<newline], as: UTF8.self)
                unread.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard left > .zero, poll(&ready, 1, Int32(left / .milliseconds(1)) + 1) > 0 else {
                if left <= .zero { return nil }
                continue
            }
            let more = Self.readSome(output)
            if more.isEmpty { return nil }
            unread.append(more)
        }
    }

    /// Sends it `signal`, e.g. `SIGINT` as Ctrl-C does, or `SIGTERM`; returns at once.
    public func send(_ signal: Int32) {
        if isRunning { Glibc.kill(processIdentifier, signal) }
    }

    /// Kills it with SIGKILL, as a crash or the out-of-memory killer would, and waits until it is gone.
    public func kill() {
        send(SIGKILL)
        _ = reap(waiting: true)
    }

    /// Waits for it to end, reading what it prints, and returns its status (its exit code, or the number
    /// of the signal that ended it) and output.
    public func finish() -> ToolResult {
        // Read both pipes to the end before waiting, so a chatty tool cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        DispatchQueue.global().async(group: group) { [error] in errorData = Self.readAll(error) }
        let outputData = unread + Self.readAll(output)
        group.wait()
        return ToolResult(
            status: reap(waiting: true) ?? -1,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    /// Its status once it has ended (waiting for that when `waiting`), reaping it the first time.
    private func reap(waiting: Bool) -> Int32? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            var result: Int32
            repeat { result = waitpid(processIdentifier, &status, waiting ? 0 : WNOHANG) } while result < 0 && errno == EINTR
            guard result == processIdentifier else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            ended = status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
            return ended
        }
    }

    private static func readSome(_ descriptor: Int32) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    private static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        while case let more = readSome(descriptor), !more.isEmpty { data.append(more) }
        return data
    }
}

/// A tool that exited non-zero where the test needed it to succeed.
public struct ToolFailure: Error, CustomStringConvertible {
    public let command: String
    public let result: ToolResult

    public init(command: String, result: ToolResult) {
        self.command = command
        self.result = result
    }

    public var description: String { "`\(command)` exited \(result.status): \(result.standardError)" }
}

#if canImport(Testing)
import Testing

/// What the tools report is what they did: status, both outputs, lines as they come, a kill.
@Suite struct ToolTests {
    @Test func aToolsStatusAndOutputsAreKeptApart() throws {
        let result = try Tool.run("sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3 && result.standardOutput == "out\n" && result.standardError == "err\n")
        #expect(try Tool.run("cat", [], input: Data("given".utf8)).standardOutput == "given")
    }

    @Test func linesArriveAsPrintedAndAKillEndsTheTool() throws {
        let tool = try Tool.start("sh", ["-c", "echo first; exec sleep 30"])
        #expect(tool.nextLine() == "first")
        #expect(tool.nextLine(timeout: 0.2) == nil && tool.isRunning)
        tool.kill()
        #expect(!tool.isRunning && tool.finish().status == SIGKILL)
    }
}
#endif

/// Waits up to `seconds` for `condition`, looking every 20 ms; returns whether it came true.
public func eventually(within seconds: Double = 10, _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

/// Runs `work`, which blocks (on a process, a server, a stream that comes in real time), on a thread of its own, and
/// waits for it without holding a thread of the test pool: the pool has as many threads as cores, and a test that
/// blocks one for a minute leaves the other tests half the machine.
public func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
