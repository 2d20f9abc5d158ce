import Foundation
import Glibc

/// A program running on a pseudo-terminal of its own, as in a terminal window: its standard input,
/// output and error are the terminal, which is its controlling terminal, so typing Ctrl-C (``type(_:)``
/// with `"\u{03}"`) sends it SIGINT through the terminal's line discipline as a keyboard would.
///
/// The test reads what the program draws from the master side with a deadline (``read(until:timeout:)``),
/// and keeps the terminal side open: its modes can be read while the program runs and after it has ended
/// (``localModes``), to see that the program changed them and put them back.
///
/// The program is started with `posix_spawn` in a session of its own, with no other descriptor of the
/// test process and every signal at its default (see ``PulseAudioServer`` for why not Foundation's
/// `Process`, and tmux's client hung when started from the tests). It is killed when the value is
/// released while it still runs.
public final class PseudoTerminal {
    /// The program's process id.
    public let pid: Int32
    /// The terminal's local modes before the program started (see ``localModes``).
    public let initialModes: tcflag_t
    /// The terminal window's side; -1 once ``hangUp()`` closed it.
    private var master: Int32
    private let terminal: Int32
    private var received = Data()
    private var exitStatus: Int32?

    /// Starts `executable` (a path, or a name on `PATH`) with `arguments` and `environment` on a new
    /// terminal of `columns` × `rows`.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30
    ) throws {
        var master: Int32 = -1
        var terminal: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &terminal, nil, nil, &size) == 0 else { throw SpawnFailure("openpty", errno) }
        self.master = master
        self.terminal = terminal
        var settings = termios()
        tcgetattr(terminal, &settings)
        initialModes = settings.c_lflag
        // ttyname_r, not ttyname: ttyname's name is one buffer for the whole process, which another test starting a
        // terminal at the same time overwrites (a torn "/dev/pts/…" opened as a directory: EISDIR from posix_spawnp).
        var path = [CChar](repeating: 0, count: 64)
        let named = ttyname_r(terminal, &path, path.count)
        guard named == 0 else {
            close(master)
            close(terminal)
            throw SpawnFailure("ttyname_r", named)
        }
        let name = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        // A new session, so that opening the terminal below makes it the program's controlling terminal,
        // with the program in its foreground.
        var attributes = posix_spawnattr_t.defaultSignals(newSession: true)
        defer { posix_spawnattr_destroy(&attributes) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        try actions.closeDescriptors(from: 3)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: Int32 = 0
        let result = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(master)
            close(terminal)
            throw SpawnFailure("posix_spawnp \(executable)", result)
        }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitForExit(timeout: 5)
        }
        if master >= 0 { close(master) }
        close(terminal)
    }

    /// Everything the program has written to the terminal so far (what ``read(until:timeout:)`` and
    /// ``waitForExit(timeout:)`` received), as text. The terminal turns each `\n` into `\r\n`.
    public var screen: String { String(decoding: received, as: UTF8.self) }

    /// Reads what the program writes until `condition` holds for ``screen`` or `timeout` seconds have
    /// passed; returns whether it held.
    @discardableResult
    public func read(until condition: (String) -> Bool, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(screen) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            readAvailable(waitingAtMost: left)
        }
        return true
    }

    /// Waits up to `timeout` seconds for `condition` (about the program, not what it draws: its state, the
    /// terminal's modes), looking every 10 ms and reading what the program writes meanwhile; returns whether it held.
    @discardableResult
    public func wait(until condition: () -> Bool, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return false }
            readAvailable(waitingAtMost: 0.01)
        }
        return true
    }

    /// Types `text` on the terminal's keyboard: it reaches the program as input, or as a signal (Ctrl-C,
    /// `"\u{03}"`) while the terminal's signal keys are on.
    public func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Resizes the terminal as a window resized would: the program's foreground process group gets SIGWINCH.
    public func resize(columns: Int, rows: Int = 30) {
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// Closes the terminal as closing its window would: the program, whose controlling terminal it is, gets
    /// SIGHUP, and what it writes from then on goes nowhere. ``screen`` keeps what it wrote before.
    public func hangUp() {
        readAvailable(waitingAtMost: 0)
        close(master)
        master = -1
    }

    /// The terminal's local modes now (`c_lflag`: `ICANON`, `ECHO`, `ISIG`, ...), also after the program ended.
    public var localModes: tcflag_t {
        var settings = termios()
        tcgetattr(terminal, &settings)
        return settings.c_lflag
    }

    /// Waits up to `timeout` seconds for the program to end, reading what it writes meanwhile, and returns
    /// its status as a shell gives it (the exit code, or 128 + the signal that ended it); `nil` if it still runs.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while exitStatus == nil {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            } else if result == -1, errno != EINTR {
                exitStatus = -1
            } else {
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else { return nil }
                readAvailable(waitingAtMost: min(left, 0.02))
            }
        }
        // What the program wrote last is still in the terminal's buffer.
        readAvailable(waitingAtMost: 0)
        return exitStatus
    }

    /// Appends what the master side has to ``received``, waiting up to `seconds` for the first bytes.
    private func readAvailable(waitingAtMost seconds: Double) {
        guard master >= 0 else {
            usleep(useconds_t(seconds * 1_000_000))
            return
        }
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var timeout = Int32((seconds * 1000).rounded(.up))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while poll(&descriptor, 1, timeout) > 0 {
            let count = Glibc.read(master, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[..<count])
            timeout = 0
        }
    }
}

extension SpawnFailure {
    /// `call` failed with the C error `code`.
    init(_ call: String, _ code: Int32) {
        description = "\(call) failed: \(String(cString: strerror(code)))"
    }
}

#if canImport(Testing)
import Testing

/// A program on the pseudo-terminal has it as its terminal: it reads what is typed and its output is read back.
@Suite struct PseudoTerminalTests {
    @Test func aProgramReadsWhatIsTypedAndIsReadBack() throws {
        let shell = try PseudoTerminal(
            "sh", ["-c", "test -t 0 && test -t 1 && echo ready; read line; echo got:$line"],
            environment: Tool.environment)
        #expect(shell.read(until: { $0.contains("ready") }, timeout: 10))
        shell.type("hello\n")
        #expect(shell.read(until: { $0.contains("got:hello") }, timeout: 10), "\(shell.screen)")
        #expect(shell.waitForExit(timeout: 10) == 0)
    }
}
#endif
