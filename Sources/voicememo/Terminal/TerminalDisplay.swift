import FoundationEssentials
import Glibc
import Synchronization
import SystemPackage

/// A live display on the terminal: lines redrawn in place, the cursor hidden and typed keys neither
/// echoed nor line-buffered while it runs, everything put back by ``finish()`` — and, should the process
/// end another way (an error, `exit`), by an exit handler.
///
/// Ctrl-C still sends SIGINT (the terminal keeps its signal keys): commands watch for it
/// (``StopSignals``, ``PlayerGroup``) and finish the display.
///
/// **Thread safety**: one task draws and finishes; ``note(_:)`` may come from any other.
final class TerminalDisplay: @unchecked Sendable {
    /// The terminal's settings before the display changed them, and whether a display is showing,
    /// for the exit handler. Only the main flow of a command makes and finishes displays.
    nonisolated(unsafe) private static var saved: termios?
    nonisolated(unsafe) private static var isShowing = false

    /// Whether standard input is a terminal, now sending each key as it is typed (see ``Key/typed()``).
    let takesKeys: Bool
    /// The lines on the screen, as last drawn (none after a note).
    private var drawn: [String] = []
    private var isFinished = false
    /// Keeps a note and a redraw from interleaving their escape sequences.
    private let lock = Mutex(())

    /// Whether standard output is a terminal that can move its cursor: not a pipe or a file, and not
    /// `TERM=dumb` (an editor's shell buffer), where commands print plain lines instead.
    static var isAvailable: Bool {
        isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// The display on standard output, or `nil` when it is not available (``isAvailable``).
    init?() {
        guard Self.isAvailable else { return nil }
        var settings = termios()
        takesKeys = isatty(STDIN_FILENO) == 1 && tcgetattr(STDIN_FILENO, &settings) == 0
        if takesKeys {
            Self.saved = settings
            settings.c_lflag &= ~tcflag_t(ECHO | ICANON)
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
        Self.isShowing = true
        _ = Self.restoreAtExit
        write("\u{1B}[?25l")
    }

    /// Whether colors may be used: the `NO_COLOR` convention (https://no-color.org) says not when it is set.
    static let allowsColor = (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty

    /// The terminal's width in columns (80 when it does not say).
    var columns: Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// Replaces the lines drawn last with `lines`, in one write so that the terminal never shows half a
    /// frame. Each line must fit the width (``columns``): one that wraps would push the display down.
    /// A frame the same as the one on the screen is not written again: the meter's levels change with each device
    /// period, fewer times a second than it is redrawn.
    func draw(_ lines: [String]) {
        lock.withLock { _ in
            guard lines != drawn else { return }
            var text = drawn.isEmpty ? "" : "\u{1B}[\(drawn.count)F"
            for line in lines { text += "\u{1B}[2K" + line + "\n" }
            write(text)
            drawn = lines
        }
    }

    /// Prints `line` where the live lines are, to stay above them: the next ``draw(_:)`` starts below it.
    func note(_ line: String) {
        lock.withLock { _ in
            let up = drawn.isEmpty ? "" : "\u{1B}[\(drawn.count)F"
            write(up + "\u{1B}[2K" + line + "\n\u{1B}[J")
            drawn = []
        }
    }

    /// Leaves the last lines on the screen and puts the terminal back as it was. Calling it again does nothing.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        Self.restore()
    }

    private func write(_ text: String) {
        _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)
    }

    private static func restore() {
        if var settings = saved {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            saved = nil
        }
        _ = try? FileDescriptor.standardOutput.writeAll("\u{1B}[?25h".utf8)
        isShowing = false
    }

    private static let restoreAtExit: Void = {
        atexit { if TerminalDisplay.isShowing { TerminalDisplay.restore() } }
    }()
}
