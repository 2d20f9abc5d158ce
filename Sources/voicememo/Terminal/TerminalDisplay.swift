import Foundation
import Glibc

/// A live display on the terminal: lines redrawn in place, the cursor hidden and typed keys neither
/// echoed nor line-buffered while it runs, everything put back by ``finish()`` — and, should the process
/// end another way (an error, `exit`), by an exit handler.
///
/// Ctrl-C still sends SIGINT: commands watch for it (``StopSignals``) and finish the display.
///
/// **Thread safety**: use it from one thread.
final class TerminalDisplay {
    /// The terminal's settings before the display changed them, for the exit handler.
    nonisolated(unsafe) private static var saved: termios?

    private var drawnLines = 0
    private var isFinished = false

    /// The display on standard output, or `nil` when standard output is not a terminal.
    init?() {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var settings = termios()
        if isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 {
            Self.saved = settings
            settings.c_lflag &= ~tcflag_t(ECHO | ICANON)
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        }
        _ = Self.restoreAtExit
        write("\u{1B}[?25l")
    }

    /// Whether colors may be used: the `NO_COLOR` convention (https://no-color.org) says not when it is set.
    static var allowsColor: Bool {
        (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// The terminal's width in columns (80 when it does not say).
    var columns: Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// Replaces the lines drawn last with `lines`.
    func draw(_ lines: [String]) {
        var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)F" : ""
        for line in lines { text += "\u{1B}[2K" + line + "\n" }
        write(text)
        drawnLines = lines.count
    }

    /// Leaves the last lines on the screen and puts the terminal back as it was. Calling it again does nothing.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        Self.restore()
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private static func restore() {
        if var settings = saved {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            saved = nil
        }
        FileHandle.standardOutput.write(Data("\u{1B}[?25h".utf8))
    }

    private static let restoreAtExit: Void = {
        atexit { if TerminalDisplay.saved != nil { TerminalDisplay.restore() } }
    }()
}
