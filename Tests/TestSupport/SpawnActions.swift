import Foundation

extension posix_spawn_file_actions_t {
    /// Adds "close every descriptor from `lowest` on" to these file actions, so that a child started with
    /// them inherits nothing else of the test process: a long-lived child holding the write end of another
    /// test's pipe would keep that test waiting for the end of its tool's output.
    ///
    /// glibc (2.34 and later) has `posix_spawn_file_actions_addclosefrom_np`, but Swift's Glibc module
    /// does not import it: it is looked up by name.
    mutating func closeDescriptors(from lowest: Int32) throws {
        guard let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw SpawnFailure(description: "this C library lacks posix_spawn_file_actions_addclosefrom_np (glibc ≥ 2.34)")
        }
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(&self, lowest)
    }
}

extension posix_spawnattr_t {
    /// Attributes that start a child with every signal at its default action and none blocked, whatever
    /// the test process ignores or blocks; in a session of its own when `newSession`. Destroy them after use.
    static func defaultSignals(newSession: Bool = false) -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var all = sigset_t()
        var none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        // POSIX_SPAWN_SETSID is glibc's 0x80, not imported into Swift.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (newSession ? 0x80 : 0)))
        return attributes
    }
}

/// Starts a server of the tests, `arguments[0]` looked up on `PATH`, with `environment` only: standard input from
/// /dev/null, standard output and error appended to `log`, nothing else of the test process, signals at their
/// defaults. Returns its pid, for the caller to stop and reap (`kill`, `waitpid`): a server's pipe that no one read
/// would fill up and stop it.
func spawnServer(_ arguments: [String], environment: [String: String], log: URL) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    try actions.closeDescriptors(from: 3)
    var attributes = posix_spawnattr_t.defaultSignals()
    defer { posix_spawnattr_destroy(&attributes) }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard result == 0 else { throw SpawnFailure(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
    return pid
}

/// A child process could not be started.
public struct SpawnFailure: Error, CustomStringConvertible {
    public let description: String
}

#if canImport(Testing)
import Testing

/// A child started with these actions and attributes holds its three standard descriptors and nothing
/// else of the test process, and has its signals at their defaults.
@Suite struct SpawnActionsTests {
    @Test func aChildInheritsOnlyItsStandardDescriptorsAndDefaultSignals() throws {
        // A descriptor of this process that is not close-on-exec.
        let leaked = open("/dev/null", O_RDONLY)
        defer { close(leaked) }
        #expect(leaked > 2)
        let shell = try Tool.run("sh", ["-c", "ls /proc/$$/fd; grep SigIgn /proc/$$/status"])
        let lines = shell.standardOutput.split(separator: "\n")
        #expect(lines.dropLast() == ["0", "1", "2"], "\(shell.standardOutput)")
        // Signals 1 to 31 (glibc keeps 32 and 33 for itself).
        let ignored = lines.last.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(ignored.map { $0 & 0x7FFF_FFFF } == 0, "\(shell.standardOutput)")
    }
}
#endif
