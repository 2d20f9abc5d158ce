import Foundation
import Glibc

/// The terminal a command draws in: raw keys in, a status line redrawn in place out, and everything
/// restored on the way out (also after Ctrl-C or an error).
///
/// Only used when both standard input and output are terminals.
final class Terminal: @unchecked Sendable {
    private var original = termios()
    /// Whether colours are wanted: not when `NO_COLOR` is set (https://no-color.org) or `TERM` is "dumb".
    let usesColor: Bool

    init() {
        let environment = ProcessInfo.processInfo.environment
        usesColor = environment["NO_COLOR"].map(\.isEmpty) ?? true && environment["TERM"] != "dumb"
    }

    /// Whether standard input and output are both terminals.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// The terminal's width in columns (80 when it does not say).
    var columns: Int {
        var size = winsize()
        return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// Turns off line buffering and echo, and hides the cursor.
    func enterRawMode() {
        tcgetattr(STDIN_FILENO, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        write("\u{1B}[?25l")
    }

    /// Puts the terminal back as it was: modes, cursor, and a fresh line after the status line.
    func restore() {
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
        write("\r\u{1B}[K\u{1B}[?25h")
    }

    /// Replaces the current line with `line`, cut to the terminal's width.
    func redraw(_ line: String) {
        write("\r" + line + "\u{1B}[K")
    }

    /// `text` in the colour of ANSI code `code` (e.g. 32 green), or plain without colour.
    func colored(_ text: String, _ code: Int) -> String {
        usesColor ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
